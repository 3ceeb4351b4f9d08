-- Blobs (docs/adr/0013-artifacts-in-postgresql.md): uploaded build ZIPs and unpacked builds (tar.gz) kept in
-- the database every service reaches, so no two processes need a shared (ReadWriteMany) volume.
-- Plain SQL on purpose, outside prisma/schema.prisma: only the blob store (libs/platform/src/blobs) reads
-- these tables.
--
-- One header row per write, under a fresh id; its chunks (1 MiB bytea rows, in seq order) point at it.
-- A write becomes visible under its key only when `complete` is set, in the transaction that also removes
-- the key's previous complete blob: a reader never sees a half-written blob, and a crashed writer leaves an
-- incomplete header (with its chunks) that a sweep removes once `touched_at` is old.

CREATE TABLE "blobs" (
  "id" UUID PRIMARY KEY,
  "key" TEXT NOT NULL,
  "complete" BOOLEAN NOT NULL DEFAULT false,
  "size_bytes" BIGINT,
  "sha256" TEXT,
  "chunks" INTEGER,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  -- The last chunk written (or the completion): how a sweep tells an abandoned write from a slow one.
  "touched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- At most one complete blob per key; incomplete writes of a key may exist beside it.
CREATE UNIQUE INDEX "blobs_key_complete_idx" ON "blobs"("key") WHERE "complete";
CREATE INDEX "blobs_key_idx" ON "blobs"("key");
CREATE INDEX "blobs_touched_at_idx" ON "blobs"("touched_at");

CREATE TABLE "blob_chunks" (
  "blob_id" UUID NOT NULL REFERENCES "blobs"("id") ON DELETE CASCADE,
  "seq" INTEGER NOT NULL,
  "data" BYTEA NOT NULL,
  CONSTRAINT "blob_chunks_pkey" PRIMARY KEY ("blob_id", "seq")
);

-- The bytes are compressed already (ZIP, tar.gz): storing them as they are saves TOAST's futile attempt.
ALTER TABLE "blob_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;
