-- The game API (ADR-0016): how a server becomes running (ports bound, or the game's own ready report) and
-- what its game last reported (players, health, message, reported_at), shown on GET /v3/servers/{id}.
ALTER TABLE "servers" ADD COLUMN "readiness" TEXT NOT NULL DEFAULT 'ports';
ALTER TABLE "servers" ADD COLUMN "game_status" JSONB;
