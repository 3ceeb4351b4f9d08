// What a service's handler int tests need: the service module booted as in standalone (in-process bus,
// the PostgreSQL event store and read models on a fresh database), asked over the real bus the way the
// gateway asks it. `extra`: other service modules it talks to (e.g. servers asks projects and builds).
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { Bus, COMMAND_ID_HEADER, Headers } from '@spawnpoint/messaging';
import { BLOBS, BlobStore, BUS, loadConfig, PlatformConfig, PlatformModule } from '@spawnpoint/platform';
import { SUBJECTS, UPLOAD_BLOB_PREFIX, UploadTicket } from '@spawnpoint/proto';
import { createTestDatabase } from './databases';
import { eventually } from './http';

export interface ServiceBed {
  app: INestApplicationContext;
  bus: Bus;
  config: PlatformConfig;
  databaseUrl: string;
  /** A bus request as the gateway sends it; `commandId` sets the command-id header of a write. */
  request<T = any>(subject: string, payload: unknown, options?: { commandId?: string; headers?: Headers }): Promise<T>;
  close(): Promise<void>;
}

export async function startServiceBed(prefix: string, modules: Type<unknown>[], env: NodeJS.ProcessEnv = {}): Promise<ServiceBed> {
  const db = await createTestDatabase(prefix);
  const config = { ...loadConfig({ SPAWNPOINT_DATA_DIR: `/tmp/${db.name}`, ...env }, 'standalone'), databaseUrl: db.url };
  @Module({ imports: [PlatformModule.forRoot(config, prefix), ...modules] })
  class BedRoot {}
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(BedRoot, { logger: ['error', 'warn'], abortOnError: false });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const bus = app.get<Bus>(BUS);
  return {
    app,
    bus,
    config,
    databaseUrl: db.url,
    request: (subject, payload, options = {}) =>
      bus.request(subject, payload, { headers: { ...(options.commandId ? { [COMMAND_ID_HEADER]: options.commandId } : {}), ...options.headers } }),
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

/** The sample game (examples/zip-build.js) uploaded to the project as the build `name`, once it is ready (needs BuildsModule). */
export async function uploadSampleBuild(bed: ServiceBed, projectId: string, name = 'default'): Promise<void> {
  const ticket = await bed.request<UploadTicket>(SUBJECTS.builds.requestUpload, { projectId, name });
  const zip = path.join(bed.config.dataDir, `upload-${randomUUID()}.zip`);
  execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'examples', 'zip-build.js'), zip]);
  await uploadZip(bed, ticket.token, zip);
  rmSync(zip, { force: true });
  await eventually(() => bed.request<{ status: string }>(SUBJECTS.builds.get, { projectId, buildId: ticket.build_id }), (b) => b.status === 'ready', 20_000, 'build ready');
}

/** Hands the builds service a ZIP file as the gateway does: streamed into an upload blob, then receiveUpload. */
export async function uploadZip<T = unknown>(bed: ServiceBed, token: string, zip: string): Promise<T> {
  const blobKey = `${UPLOAD_BLOB_PREFIX}${randomUUID()}`;
  await bed.app.get<BlobStore>(BLOBS).put(blobKey, createReadStream(zip));
  return bed.request<T>(SUBJECTS.builds.receiveUpload, { token, blobKey, sizeBytes: statSync(zip).size });
}
