-- GET /v3/projects/logs: a project's lines across its servers, oldest first, read by (project_id, ts).
CREATE INDEX "log_lines_project_id_ts_idx" ON "log_lines"("project_id", "ts");
