-- Live lobbies, kept by the lobbies service's projection (apps/lobbies/src/lobbies.projection.ts).
-- Authored by hand to match prisma/schema.prisma (model Lobby): prisma migrate diff needs an engine
-- download these machines cannot reach.

-- CreateTable
CREATE TABLE "lobbies" (
    "id" UUID NOT NULL,
    "project_id" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "is_private" BOOLEAN NOT NULL,
    "player_count" INTEGER NOT NULL,
    "max_players" INTEGER NOT NULL,
    "server_id" TEXT,
    "state" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "lobbies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "lobbies_project_id_config_created_at_id_idx" ON "lobbies"("project_id", "config", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "lobbies_server_id_idx" ON "lobbies"("server_id");
