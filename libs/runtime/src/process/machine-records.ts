// The process runtime's durable notes, one per running game, under its state directory
// (SPAWNPOINT_DATA_DIR/machines): which process the game is and what it was started with, so a
// platform restarted after a crash finds exactly its own games again and nothing else.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MachineSpec } from '../runtime';
import { identify, type ProcessIdentity } from './proc-identity';

export interface MachineRecord extends ProcessIdentity {
  serverId: string;
  /** Wall clock of the spawn (ms), for a startup timeout that counts from the real start. */
  spawnedAt: number;
  /** What the game was started with: a crash restart of an adopted game starts it again. */
  spec: MachineSpec;
}

/** Where the spawner copies a game's output while no platform reads it (see spawner-main.ts). */
export interface SpillFiles { stdout: string; stderr: string }

const RECORD = /^(.+)\.json$/;

export class MachineRecords {
  constructor(readonly dir: string) {}

  recordFile(serverId: string): string {
    return path.join(this.dir, `${fileSafe(serverId)}.json`);
  }

  /** How far the spill files were read: an adopted game adopted again (another crash) is not read twice. */
  readOffsets(serverId: string): { stdout: number; stderr: number } {
    try {
      const offsets = JSON.parse(readFileSync(this.offsetsFile(serverId), 'utf8')) as { stdout: number; stderr: number };
      return { stdout: Number(offsets.stdout) || 0, stderr: Number(offsets.stderr) || 0 };
    } catch {
      return { stdout: 0, stderr: 0 };
    }
  }

  saveOffsets(serverId: string, offsets: { stdout: number; stderr: number }): void {
    try {
      writeFileSync(this.offsetsFile(serverId), JSON.stringify(offsets), { mode: 0o600 });
    } catch {
      // at worst, lines read again after another crash
    }
  }

  private offsetsFile(serverId: string): string {
    return path.join(this.dir, `${fileSafe(serverId)}.offsets`);
  }

  spillFiles(serverId: string): SpillFiles {
    const base = path.join(this.dir, fileSafe(serverId));
    return { stdout: `${base}.stdout.log`, stderr: `${base}.stderr.log` };
  }

  /**
   * Make this process the directory's only user: a second servers service on the same data dir would adopt
   * (and stop) the first one's games. An owner that is no longer running (same pid and start time) is replaced.
   */
  claim(): void {
    const file = path.join(this.dir, 'owner.json');
    try {
      const owner = JSON.parse(readFileSync(file, 'utf8')) as ProcessIdentity;
      const now = identify(owner.pid);
      if (owner.pid !== process.pid && now && now.startTime === owner.startTime) {
        throw new Error(`the game machines under ${this.dir} belong to another running servers service (pid ${owner.pid}); with the process runtime, run one servers service per data dir (SPAWNPOINT_DATA_DIR)`);
      }
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('the game machines')) throw err;
      // no owner yet, or an unreadable note: nobody we can recognise
    }
    const me = identify(process.pid);
    if (me) writeRecordFile(file, me);
  }

  /** Every record left in the directory (unreadable ones are removed: they name no process we can trust). */
  list(): MachineRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const records: MachineRecord[] = [];
    for (const name of names) {
      if (!RECORD.test(name) || name === 'owner.json') continue;
      const file = path.join(this.dir, name);
      try {
        const record = JSON.parse(readFileSync(file, 'utf8')) as MachineRecord;
        if (Number.isInteger(record.pid) && Number.isInteger(record.startTime) && typeof record.serverId === 'string' && record.spec) records.push(record);
        else rmSync(file, { force: true });
      } catch {
        rmSync(file, { force: true });
      }
    }
    return records;
  }

  /** The game and what it came from, for good. */
  remove(serverId: string): void {
    rmSync(this.recordFile(serverId), { force: true });
    const spill = this.spillFiles(serverId);
    rmSync(spill.stdout, { force: true });
    rmSync(spill.stderr, { force: true });
    rmSync(this.offsetsFile(serverId), { force: true });
  }
}

/** Written whole or not at all (a crash mid-write leaves the old file or none), readable by the owner only: the spec holds the game's environment. */
export function writeRecordFile(file: string, record: MachineRecord | ProcessIdentity): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
  renameSync(temp, file);
}

function fileSafe(serverId: string): string {
  return serverId.replace(/[^A-Za-z0-9_.-]/g, '_');
}
