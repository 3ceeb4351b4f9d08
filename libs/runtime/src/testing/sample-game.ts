import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The sample game server in examples/ (see examples/README.md). */
export const SAMPLE_GAME_SCRIPT = path.resolve(__dirname, '../../../../examples/game-server/server.js');

export interface TempBuild {
  buildDir: string;
  executablePath: string;
  remove(): Promise<void>;
}

/** A build directory holding one executable shell script named `server`. */
export async function createScriptBuild(script: string): Promise<TempBuild> {
  const buildDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-build-'));
  const executable = path.join(buildDir, 'server');
  await writeFile(executable, `#!/bin/sh\n${script}\n`);
  await chmod(executable, 0o755);
  return { buildDir, executablePath: 'server', remove: () => rm(buildDir, { recursive: true, force: true }) };
}

/** A build that runs the sample game. Node is named by absolute path: games only get the platform's PATH. */
export function createSampleGameBuild(): Promise<TempBuild> {
  return createScriptBuild(`exec ${shellQuote(process.execPath)} ${shellQuote(SAMPLE_GAME_SCRIPT)} "$@"`);
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Whether a local process is gone; a zombie nobody reaps counts as gone. */
export async function localProcessGone(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat === null || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}
