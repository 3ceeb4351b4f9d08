// A build's directory on a servers machine, materialised from the build's tar.gz blob on real PostgreSQL:
// extracted whole (executable bits kept) into an empty data dir, once for many concurrent starts in one
// process and safely when two processes on one data dir race; a directory already there is used as it is.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobStore, loadConfig, Platform } from '@spawnpoint/platform';
import { migrateReadModels } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { BuildDirs } from './build-dirs';

describe('BuildDirs (PostgreSQL blobs, real tar)', () => {
  let db: TestDatabase;
  let blobs: BlobStore;
  let tmp: string;
  const buildId = '11111111-1111-4111-8111-111111111111';

  /** A servers process on data dir `dataDir` (only the config matters to BuildDirs). */
  const dirsOn = (dataDir: string) => new BuildDirs({ config: loadConfig({ SPAWNPOINT_DATA_DIR: dataDir }) } as Platform, blobs);

  beforeAll(async () => {
    db = await createTestDatabase('builddirs');
    await migrateReadModels(db.url);
    blobs = new BlobStore(db.url);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sp-build-dirs-'));
    // The build as the builds service stores it: a tar.gz of the unpacked directory's entries.
    const unpacked = path.join(tmp, 'unpacked');
    mkdirSync(path.join(unpacked, 'data'), { recursive: true });
    writeFileSync(path.join(unpacked, 'server'), '#!/bin/sh\necho hi\n');
    chmodSync(path.join(unpacked, 'server'), 0o755);
    writeFileSync(path.join(unpacked, 'data', 'map.txt'), 'map');
    execFileSync('tar', ['-czf', path.join(tmp, 'build.tar.gz'), '-C', unpacked, './data', './server']);
    await blobs.put(`build/${buildId}`, (async function* () { yield readFileSync(path.join(tmp, 'build.tar.gz')); })());
  });
  afterAll(async () => {
    await blobs?.close();
    await db?.drop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('extracts a missing build once for concurrent starts, whole and executable, and leaves no temporary directory', async () => {
    const dataDir = path.join(tmp, 'servers-a');
    const dirs = dirsOn(dataDir);
    const got = await Promise.all(Array.from({ length: 5 }, () => dirs.ensure('p1', buildId)));
    const dir = path.join(dataDir, 'builds', 'p1', buildId);
    expect(new Set(got)).toEqual(new Set([dir]));
    expect(readdirSync(path.join(dataDir, 'builds', 'p1'))).toEqual([buildId]);
    expect(readFileSync(path.join(dir, 'data', 'map.txt'), 'utf8')).toBe('map');
    expect(statSync(path.join(dir, 'server')).mode & 0o111).not.toBe(0);
    // Present: used as it is (the blob is not read again).
    writeFileSync(path.join(dir, 'marker'), 'kept');
    expect(await dirs.ensure('p1', buildId)).toBe(dir);
    expect(existsSync(path.join(dir, 'marker'))).toBe(true);
  });

  it('two processes on one data dir racing for the same build both end with the one whole directory', async () => {
    const dataDir = path.join(tmp, 'servers-b');
    const [a, b] = [dirsOn(dataDir), dirsOn(dataDir)];
    const [da, dbDir] = await Promise.all([a.ensure('p1', buildId), b.ensure('p1', buildId)]);
    expect(da).toBe(dbDir);
    expect(readdirSync(path.join(dataDir, 'builds', 'p1'))).toEqual([buildId]);
    expect(readdirSync(da).sort()).toEqual(['data', 'server']);
  });

  it('fails a start whose build has no stored artifact, and leaves nothing behind', async () => {
    const dataDir = path.join(tmp, 'servers-c');
    await expect(dirsOn(dataDir).ensure('p1', '22222222-2222-4222-8222-222222222222')).rejects.toThrow(/no stored artifact/);
    expect(existsSync(path.join(dataDir, 'builds', 'p1', '22222222-2222-4222-8222-222222222222'))).toBe(false);
  });

  it('fails on a damaged archive without leaving a partial directory', async () => {
    const dataDir = path.join(tmp, 'servers-d');
    const broken = '33333333-3333-4333-8333-333333333333';
    await blobs.put(`build/${broken}`, (async function* () { yield readFileSync(path.join(tmp, 'build.tar.gz')).subarray(0, 40); })());
    await expect(dirsOn(dataDir).ensure('p1', broken)).rejects.toThrow(/tar exited/);
    expect(readdirSync(path.join(dataDir, 'builds', 'p1'))).toEqual([]);
  });
});
