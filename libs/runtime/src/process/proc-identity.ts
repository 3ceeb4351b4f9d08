// Which process a recorded game is, after a restart of the platform. A pid alone may have been reused by
// another program since; the pid together with its start time (/proc/<pid>/stat field 22) names one process.
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat, type ProcStat } from './proc-stat';

export interface ProcessIdentity {
  pid: number;
  /** Clock ticks after boot, /proc/<pid>/stat field 22. */
  startTime: number;
}

/** The stat of a live (not zombie) process, or null. Synchronous: the spawner records it before replying. */
export function readStat(pid: number): ProcStat | null {
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat && stat.state !== 'Z' && stat.state !== 'X' ? stat : null;
  } catch {
    return null;
  }
}

/** The identity of a running process, or null when it is gone. */
export function identify(pid: number): ProcessIdentity | null {
  const stat = readStat(pid);
  return stat ? { pid, startTime: stat.starttime } : null;
}

/**
 * Whether `recorded` still runs as the leader of its own process group (how games are started): the same
 * pid with the same start time, never a stranger that got the pid later.
 */
export function isSameGroupLeader(recorded: ProcessIdentity): boolean {
  const stat = readStat(recorded.pid);
  return stat !== null && stat.starttime === recorded.startTime && stat.pgrp === recorded.pid;
}

/**
 * Whether `recorded` has certainly ended: its /proc entry is gone, it is a zombie, or the pid names another
 * process now. A read that fails otherwise (EMFILE, EAGAIN) is no proof: a live game must never be taken
 * for gone, and then have its group killed.
 */
export function hasEnded(recorded: ProcessIdentity): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${recorded.pid}/stat`, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const stat = parseProcStat(text);
  if (!stat) return false;
  return stat.state === 'Z' || stat.state === 'X' || stat.starttime !== recorded.startTime || stat.pgrp !== recorded.pid;
}

/**
 * Live members of process group `pgid` whose leader is gone (descendants a game left behind). Only
 * meaningful while no process has the pid `pgid`: the kernel does not hand out a pid that is still some
 * group's id, so these are the old game's processes and nobody else's.
 */
export function leftoverGroupMembers(pgid: number): number[] {
  if (readStat(pgid) !== null) return [];
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat?.pgrp === pgid) members.push(stat.pid);
  }
  return members;
}
