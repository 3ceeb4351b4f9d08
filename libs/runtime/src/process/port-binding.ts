import type { AllocatedPort, Protocol } from '../runtime';
import { readProcessTree, readSocketInodes, readSockets } from './proc-fs';
import { boundInodes } from './proc-net';

/**
 * The ports the game under `pid` has not bound yet, judged from /proc alone (no help from the
 * game). A port only counts when the socket holding it belongs to the game's process tree, so a
 * stranger squatting on the port cannot make a broken game look healthy.
 */
export async function unboundPorts(pid: number, ports: AllocatedPort[]): Promise<AllocatedPort[]> {
  const protocols = [...new Set(ports.map((p) => p.protocol))];
  const tables = new Map<Protocol, Awaited<ReturnType<typeof readSockets>>>(
    await Promise.all(protocols.map(async (protocol) => [protocol, await readSockets(protocol)] as const)),
  );
  const candidates = ports.map((p) => boundInodes(tables.get(p.protocol)!, p.protocol, p.bindPort));
  const missing = ports.filter((_, i) => candidates[i].length === 0);
  // Reading every fd of the tree costs more than the tables: only do it once all ports look bound.
  if (missing.length > 0) return missing;
  const owned = await readSocketInodes(await readProcessTree(pid));
  return ports.filter((_, i) => !candidates[i].some((inode) => owned.has(inode)));
}
