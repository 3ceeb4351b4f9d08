-- The lobby stream revision a row has folded up to. The projection skips events at or below it, so a
-- batch applied twice (two replicas of the lobbies service run the projection) changes nothing.
-- Authored by hand to match prisma/schema.prisma (model Lobby).

-- AlterTable
ALTER TABLE "lobbies" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT -1;
