-- A pool server claimed by a start request records that request's command id: a retry of the start (its
-- answer lost, the servers service restarted meanwhile) answers the server it claimed, not a second one.
ALTER TABLE "servers" ADD COLUMN "start_key" TEXT;
CREATE INDEX "servers_project_id_start_key_idx" ON "servers" ("project_id", "start_key") WHERE "start_key" IS NOT NULL;
