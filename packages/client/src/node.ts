// Node-only helpers (@spawnpoint/client/node): push a build from a directory or a ZIP file on disk.
import { createWriteStream, openAsBlob, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipFile } from 'yazl';
import type { Spawnpoint } from './client';
import type { Build } from './types';

/** Files under dir, relative, sorted (the same archive on every run); links and specials are left out. */
async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await fs.readdir(path.join(dir, prefix), { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const out: string[] = [];
  for (const e of entries) {
    const rel = path.posix.join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** Zips a directory (file modes kept, so executables stay executable) into a temporary file; returns its path. */
export async function zipDirectory(dir: string): Promise<string> {
  const files = await listFiles(dir);
  if (!files.length) throw new Error(`${dir} has no files`);
  const out = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'spawnpoint-build-')), 'build.zip');
  const zip = new ZipFile();
  for (const f of files) {
    const { mode } = await fs.stat(path.join(dir, f));
    zip.addFile(path.join(dir, f), f, { mode });
  }
  zip.end();
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(out)).on('close', resolve).on('error', reject);
    zip.outputStream.on('error', reject);
  });
  return out;
}

export interface PushOptions {
  name: string;
  executable_path?: string;
  /** Wait until the build is ready (default true). */
  wait?: boolean;
  timeoutMs?: number;
  onProgress?: (sent: number, total: number) => void;
}

/** Pushes a build from a directory (zipped first) or a .zip file. */
export async function pushBuild(client: Spawnpoint, source: string, options: PushOptions): Promise<Build> {
  const stat = await fs.stat(source);
  const zipPath = stat.isDirectory() ? await zipDirectory(source) : source;
  try {
    // A file-backed Blob: a build of gigabytes is streamed from disk, never held in memory.
    return await client.builds.push(await openAsBlob(zipPath), options);
  } finally {
    if (zipPath !== source) await fs.rm(path.dirname(zipPath), { recursive: true, force: true });
  }
}
