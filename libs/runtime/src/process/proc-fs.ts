// Reads /proc for a game's process tree. Any process may vanish mid-read, so a missing file
// means "not there any more", never an error.
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { Protocol } from '../runtime';
import { parseChildPids, parseProcNet, parseSocketLink, type ProcNetSocket } from './proc-net';
import { parseProcStat, parseVmRssBytes } from './proc-stat';

const readOrNull = (path: string) => readFile(path, 'utf8').catch(() => null);

// Many launching games poll at once: one read of the socket tables serves every poll within this
// window, instead of one read per game per tick.
const SNAPSHOT_MS = 20;
const snapshots = new Map<Protocol, { at: number; sockets: Promise<ProcNetSocket[]> }>();

/** Every socket of this network namespace for a protocol, IPv4 and IPv6 (at most SNAPSHOT_MS old). */
export function readSockets(protocol: Protocol): Promise<ProcNetSocket[]> {
  const now = Date.now();
  const cached = snapshots.get(protocol);
  if (cached && now - cached.at < SNAPSHOT_MS) return cached.sockets;
  const sockets = Promise.all([readOrNull(`/proc/net/${protocol}`), readOrNull(`/proc/net/${protocol}6`)])
    .then((tables) => tables.flatMap((text) => (text === null ? [] : parseProcNet(text))));
  snapshots.set(protocol, { at: now, sockets });
  return sockets;
}

/** `pid` and its live descendants, found through /proc/<pid>/task/<tid>/children. */
export async function readProcessTree(pid: number): Promise<number[]> {
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    tree.push(current);
    const tids = await readdir(`/proc/${current}/task`).catch(() => [] as string[]);
    for (const tid of tids) {
      const children = await readOrNull(`/proc/${current}/task/${tid}/children`);
      if (children !== null) queue.push(...parseChildPids(children));
    }
  }
  return tree;
}

/** Inodes of the sockets the given processes hold open. */
export async function readSocketInodes(pids: number[]): Promise<Set<number>> {
  const inodes = new Set<number>();
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = parseSocketLink(target);
      if (inode !== null) inodes.add(inode);
    }
  }
  return inodes;
}

export interface TreeUsage {
  /** utime+stime (and that of reaped children) summed over the tree, in clock ticks. */
  cpuTicks: number;
  rssBytes: number;
}

/** CPU time and memory of a process tree, or null when its root is gone. */
export async function readTreeUsage(pid: number): Promise<TreeUsage | null> {
  const usage: TreeUsage = { cpuTicks: 0, rssBytes: 0 };
  let rootSeen = false;
  for (const member of await readProcessTree(pid)) {
    const stat = parseProcStat((await readOrNull(`/proc/${member}/stat`)) ?? '');
    if (stat === null) continue;
    rootSeen ||= member === pid;
    usage.cpuTicks += stat.utime + stat.stime + stat.cutime + stat.cstime;
    usage.rssBytes += parseVmRssBytes((await readOrNull(`/proc/${member}/status`)) ?? '') ?? 0;
  }
  return rootSeen ? usage : null;
}
