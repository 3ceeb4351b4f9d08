-- A build's logs (GET /v3/builds/{id}/logs), derived from its events by the build-logs projection; a new
-- projection with its own checkpoint, so the logs of builds stored before this table are derived too.
CREATE TABLE "build_log_lines" (
    "build_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "build_log_lines_pkey" PRIMARY KEY ("build_id","revision","line")
);
