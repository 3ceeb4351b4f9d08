-- The gateway's Idempotency-Key records (model IdempotencyKey): the unique (scope, key) is what lets
-- the first request of a key claim it ("in_progress") on any gateway replica; the answer is stored
-- with it and replayed for 24 h (expires_at), after which a clean-up deletes the row.
-- Authored by hand to match prisma/schema.prisma (model IdempotencyKey).

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "status" INTEGER,
    "body" TEXT,
    "locked_until" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("scope","key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");
