// The durable note of a spawned game, written by whoever forked it (the spawner, or the platform with the
// direct spawner) right after fork and before anyone is told of the game.
import type { MachineSpec } from '../runtime';
import { writeRecordFile } from './machine-records';
import { identify } from './proc-identity';
import { logger } from '@spawnpoint/logging';

const log = logger('runtime');

export interface SpawnRecord { file: string; serverId: string; spec: MachineSpec }

/** Writes the record; the game's start time, or null when it is already gone (nothing to adopt then). */
export function recordSpawn(pid: number, r: SpawnRecord): number | null {
  const identity = identify(pid);
  if (!identity) return null;
  try {
    writeRecordFile(r.file, { serverId: r.serverId, pid, startTime: identity.startTime, spawnedAt: Date.now(), spec: r.spec });
  } catch (err) {
    // The game runs all the same; only a crash of the platform would then lose track of it.
    log.error(`spawnpoint: could not record game ${r.serverId} (pid ${pid}) in ${r.file}: ${(err as Error).message}`);
  }
  return identity.startTime;
}
