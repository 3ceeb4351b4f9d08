-- Parked events (a projection's poison events, stored and skipped) and the registry of running
-- projections (their categories, for the health check's lag). Authored to match prisma/schema.prisma
-- (models ParkedEvent, ProjectionInfo).

-- CreateTable
CREATE TABLE "parked_events" (
    "id" BIGSERIAL NOT NULL,
    "projection" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "event_id" TEXT NOT NULL,
    "stream_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "error" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "first_failed_at" TIMESTAMPTZ(3) NOT NULL,
    "last_failed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "parked_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projections" (
    "name" TEXT NOT NULL,
    "categories" TEXT[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projections_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "parked_events_projection_position_key" ON "parked_events"("projection", "position");
