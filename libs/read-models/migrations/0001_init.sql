-- CreateTable
CREATE TABLE "checkpoints" (
    "name" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "settings" JSONB NOT NULL,
    "rate_limits" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "hash" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "builds" (
    "id" UUID NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "image" TEXT,
    "executable_path" TEXT,
    "size_bytes" BIGINT,
    "error" TEXT,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "builds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "servers" (
    "id" UUID NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "compute_size" TEXT NOT NULL,
    "version_tag" TEXT NOT NULL,
    "version" INTEGER,
    "build_id" UUID,
    "network_ports" JSONB NOT NULL,
    "startup_args" TEXT,
    "service_type" TEXT NOT NULL,
    "auto_restart" BOOLEAN NOT NULL,
    "custom_data" JSONB,
    "ttl" INTEGER,
    "is_pool_server" BOOLEAN NOT NULL,
    "pool_claimed_at" TIMESTAMP(3),
    "match_id" TEXT NOT NULL,
    "stop_reason" TEXT,
    "started_at" TIMESTAMP(3),
    "stopped_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "servers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "log_lines" (
    "id" BIGSERIAL NOT NULL,
    "server_id" UUID NOT NULL,
    "project_id" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "level" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "log_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE INDEX "builds_project_id_name_version_idx" ON "builds"("project_id", "name", "version");

-- CreateIndex
CREATE INDEX "servers_project_id_created_at_idx" ON "servers"("project_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "servers_project_id_status_idx" ON "servers"("project_id", "status");

-- CreateIndex
CREATE INDEX "log_lines_server_id_ts_idx" ON "log_lines"("server_id", "ts");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

