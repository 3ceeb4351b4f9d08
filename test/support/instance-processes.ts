// The live game processes of one server, found the way an operator would: every process whose
// environment names the instance (SPAWNPOINT_INSTANCE_ID), zombies excluded, with the ports it was given.
import { readdirSync, readFileSync } from 'node:fs';

export interface GameProcess { pid: number; ports: Record<string, number> }

export function gameProcesses(instanceId: string): GameProcess[] {
  const found: GameProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!env.includes(`SPAWNPOINT_INSTANCE_ID=${instanceId}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const ports: Record<string, number> = {};
      for (const kv of env) {
        const m = /^SPAWNPOINT_PORT_([A-Z0-9_]+)=(\d+)$/.exec(kv);
        if (m) ports[m[1]] = Number(m[2]);
      }
      found.push({ pid: Number(entry), ports });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
