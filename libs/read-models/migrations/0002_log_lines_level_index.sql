-- Log histograms count lines per level in each time bin. With level in the index key those counts are
-- index-only scans (no heap visit per line) once the pages are all-visible; the (server_id, ts) prefix
-- still serves the logs pages, so this index replaces the old one instead of adding a second write.
-- Authored with: prisma migrate diff --from-schema-datamodel <previous schema> --to-schema-datamodel prisma/schema.prisma --script

-- DropIndex
DROP INDEX "log_lines_server_id_ts_idx";

-- CreateIndex
CREATE INDEX "log_lines_server_id_ts_level_idx" ON "log_lines"("server_id", "ts", "level");
