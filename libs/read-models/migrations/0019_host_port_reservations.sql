-- Host ports of the kubernetes runtime, reserved where every servers replica sees them (ADR-0003, ADR-0021).
-- The primary key (region, port) is what keeps two replicas from handing out one port: each inserts its
-- candidates with ON CONFLICT DO NOTHING and keeps those it got. A row is written before ServerStarted is
-- appended, deleted by the server's stop teardown, and swept once its server is no longer live (after a grace,
-- as the read model may not show a just-started server yet). Not a foreign key, for the same reason.
CREATE TABLE "host_port_reservations" (
  "region" TEXT NOT NULL,
  "port" INTEGER NOT NULL,
  "server_id" UUID NOT NULL,
  "created_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY ("region", "port")
);
CREATE INDEX "host_port_reservations_server_idx" ON "host_port_reservations" ("server_id");
