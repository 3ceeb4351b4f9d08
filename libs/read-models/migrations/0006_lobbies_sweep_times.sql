-- What the lobby sweeper filters on, so a sweep reads only lobbies that may have gone idle or have a
-- silent member instead of every lobby's whole state: the last member request (state.lastActivityAt)
-- and the oldest member's last request (min of state.players[].lastSeenAt; null without players).
-- Authored by hand to match prisma/schema.prisma (model Lobby).

-- AlterTable
ALTER TABLE "lobbies" ADD COLUMN "activity_at" TIMESTAMPTZ(3);
ALTER TABLE "lobbies" ADD COLUMN "seen_min_at" TIMESTAMPTZ(3);

-- Backfill rows written before this migration
UPDATE "lobbies" SET
  "activity_at" = ("state"->>'lastActivityAt')::timestamptz,
  "seen_min_at" = (SELECT min((p->>'lastSeenAt')::timestamptz) FROM jsonb_array_elements("state"->'players') p);
UPDATE "lobbies" SET "activity_at" = "updated_at" WHERE "activity_at" IS NULL;
ALTER TABLE "lobbies" ALTER COLUMN "activity_at" SET NOT NULL;

-- CreateIndex
CREATE INDEX "lobbies_activity_at_idx" ON "lobbies"("activity_at");

-- CreateIndex
CREATE INDEX "lobbies_seen_min_at_idx" ON "lobbies"("seen_min_at");
