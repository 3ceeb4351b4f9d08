-- Per-minute line counts per server and level, kept by the servers service's LogWriter in the same
-- transaction as the log_lines insert. Log histograms with whole-minute bins and no search read these
-- ~1440 rows per server-day instead of counting every line (apps/servers/src/logs/log-queries.ts).
-- Authored with: prisma migrate diff --from-schema-datamodel <previous schema> --to-schema-datamodel prisma/schema.prisma --script
-- plus the backfill below (not generated): lines written before this migration get their counts too.

-- CreateTable
CREATE TABLE "log_minutes" (
    "server_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "info" INTEGER NOT NULL,
    "warn" INTEGER NOT NULL,
    "error" INTEGER NOT NULL,

    CONSTRAINT "log_minutes_pkey" PRIMARY KEY ("server_id","minute")
);

-- Backfill. Minutes are epoch-aligned (date_bin, not date_trunc: independent of the session time zone);
-- info is every line that is neither warn nor error, as in the histogram query.
INSERT INTO "log_minutes" ("server_id", "minute", "info", "warn", "error")
SELECT "server_id", date_bin(interval '1 minute', "ts", timestamptz '1970-01-01T00:00:00Z'),
       count(*) FILTER (WHERE "level" <> 'warn' AND "level" <> 'error')::int,
       count(*) FILTER (WHERE "level" = 'warn')::int,
       count(*) FILTER (WHERE "level" = 'error')::int
FROM "log_lines"
GROUP BY 1, 2;
