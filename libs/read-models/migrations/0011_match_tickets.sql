-- Matchmaking (apps/matchmaking): the queue as the lobbies' events issue it (one row per queued lobby,
-- its current ticket whole; `held_by`: the match it is reserved for), and the waits of matched lobbies
-- (avgWaitSeconds over the last 10 minutes). Kept by the matchmaking service's projection; plain SQL
-- outside prisma/schema.prisma: only that service reads them.

CREATE TABLE "match_tickets" (
  "lobby_id" TEXT NOT NULL,
  "project_id" TEXT NOT NULL,
  "config" TEXT NOT NULL,
  "mode" TEXT NOT NULL,
  "region" TEXT NOT NULL,
  "ticket" INTEGER NOT NULL,
  "queued_at" TIMESTAMPTZ(3) NOT NULL,
  "players" JSONB NOT NULL,
  "held_by" TEXT,
  CONSTRAINT "match_tickets_pkey" PRIMARY KEY ("lobby_id")
);
CREATE INDEX "match_tickets_queue_idx" ON "match_tickets" ("project_id", "config", "mode");

CREATE TABLE "match_waits" (
  "lobby_id" TEXT NOT NULL,
  "match_id" TEXT NOT NULL,
  "project_id" TEXT NOT NULL,
  "config" TEXT NOT NULL,
  "mode" TEXT NOT NULL,
  "region" TEXT NOT NULL,
  "players" INTEGER NOT NULL,
  "queued_at" TIMESTAMPTZ(3) NOT NULL,
  "matched_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "match_waits_pkey" PRIMARY KEY ("lobby_id", "match_id")
);
CREATE INDEX "match_waits_queue_idx" ON "match_waits" ("project_id", "config", "mode", "matched_at");
