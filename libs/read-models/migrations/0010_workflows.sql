-- Workflows (docs/adr/0010-workflows.md): each workflow instance's folded state, its pending timers, and
-- the intents decided but not yet dispatched (an outbox). Written in the same transaction as the
-- workflow's checkpoint (table checkpoints, name 'workflow:<name>'), so a crash never loses or repeats a
-- decision; an intent is deleted once dispatched (a crash in between dispatches it again, with the same
-- key). Plain SQL on purpose, outside prisma/schema.prisma: only the workflow runner reads these tables.

CREATE TABLE "workflow_states" (
  "workflow" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "state" JSONB NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "workflow_states_pkey" PRIMARY KEY ("workflow", "key")
);

-- One timer per (workflow, instance, id); setting it again moves it.
CREATE TABLE "workflow_timers" (
  "workflow" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "id" TEXT NOT NULL,
  "due_at" TIMESTAMPTZ(3) NOT NULL,
  "event" JSONB NOT NULL,
  CONSTRAINT "workflow_timers_pkey" PRIMARY KEY ("workflow", "key", "id")
);

CREATE INDEX "workflow_timers_due_idx" ON "workflow_timers"("workflow", "due_at");

-- Dispatched in id order per instance. next_attempt_at: after a failed dispatch, not before (by the runner's
-- clock; NULL: at once). failed_at: given up after its attempts (kept, with its error, for an operator).
CREATE TABLE "workflow_intents" (
  "id" BIGSERIAL NOT NULL,
  "workflow" TEXT NOT NULL,
  "key" TEXT NOT NULL,
  "intent_key" TEXT NOT NULL,
  "intent" JSONB NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "next_attempt_at" TIMESTAMPTZ(3),
  "last_error" TEXT,
  "failed_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "workflow_intents_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "workflow_intents_pending_idx" ON "workflow_intents"("workflow", "id") WHERE "failed_at" IS NULL;
