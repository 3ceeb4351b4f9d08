-- Each keyed server start (a gateway write's command id, a workflow intent's key) takes its key here before
-- it claims a pool server or starts one cold (ADR-0007): the primary key is what keeps two servers replicas
-- that both received the start (a retry after a lost answer reaches the other one) from claiming twice. The
-- one that took the key does the start; the other waits until the store shows its server (the cold start's
-- stream, the claim's start_key) and answers it. A start that failed marks its key failed (a retry starts
-- afresh); one whose replica died leaves it taken until `taken_at` is a lease old. Rows older than the
-- retries of a start are swept.
CREATE TABLE "start_keys" (
  "project_id" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "failed" BOOLEAN NOT NULL DEFAULT false,
  "taken_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY ("project_id", "key")
);
CREATE INDEX "start_keys_taken_at_idx" ON "start_keys" ("taken_at");
-- A start that took over a key looks up the pool server its earlier arrival claimed by the key (rarely: only
-- after a failure or a dead replica); the start-up load of recent claims this replaces is gone.
DROP INDEX IF EXISTS "servers_keyed_claims_idx";
CREATE INDEX "servers_start_key_idx" ON "servers" ("project_id", "start_key") WHERE "start_key" IS NOT NULL;
