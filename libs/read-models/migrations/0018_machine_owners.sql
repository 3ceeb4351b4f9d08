-- Ownership of game machines with several servers replicas (ADR-0021). Each runtime instance (a servers
-- process: its data dir; Kubernetes: its pod) has an owner id and heartbeats a lease here; a server's
-- machine is owned by the instance that launched (or took over) it. Reconcile touches only its own servers
-- and those of an owner whose lease expired; the conditional UPDATE of server_owners lets one instance win.
CREATE TABLE "machine_owner_leases" (
  "owner_id" TEXT PRIMARY KEY,
  "expires_at" TIMESTAMPTZ NOT NULL,
  "renewed_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Written before ServerStarted is appended (no window where a live server has no owner); not a foreign key:
-- the servers read model may lag behind the row.
CREATE TABLE "server_owners" (
  "server_id" UUID PRIMARY KEY,
  "owner_id" TEXT NOT NULL,
  "taken_over_from" TEXT
);
CREATE INDEX "server_owners_owner_idx" ON "server_owners" ("owner_id");
