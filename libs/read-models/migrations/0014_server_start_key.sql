-- A pool server claimed by a start request records that request's command id: a retry of the start (its
-- answer lost, the servers service restarted meanwhile) answers the server it claimed, not a second one.
ALTER TABLE "servers" ADD COLUMN "start_key" TEXT;
-- The servers service loads the claims of the last minutes at start-up (RecentClaims): by claim time.
CREATE INDEX "servers_keyed_claims_idx" ON "servers" ("pool_claimed_at") WHERE "start_key" IS NOT NULL;
