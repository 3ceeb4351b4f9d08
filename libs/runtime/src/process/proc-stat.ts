// Pure parsers for /proc/<pid>/stat and /proc/<pid>/status, used for metrics.

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  /** CPU time in clock ticks; the c* fields are of children already waited for. */
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
  /** Field 22: when the process started, in clock ticks after boot. With the pid, it names one process for good (pids are reused). */
  starttime: number;
}

/** Parse /proc/<pid>/stat, or null when malformed. */
export function parseProcStat(text: string): ProcStat | null {
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open === -1 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ")": state(3) ppid(4) pgrp(5) ... utime(14) stime(15) cutime(16) cstime(17) ... starttime(22), numbered as in proc(5).
  const rest = text.slice(close + 1).trim().split(/\s+/);
  if (rest.length < 20) return null;
  const field = (n: number) => Number(rest[n - 3]);
  const stat = {
    pid, state: rest[0], ppid: field(4), pgrp: field(5),
    utime: field(14), stime: field(15), cutime: field(16), cstime: field(17), starttime: field(22),
  };
  return Object.values(stat).some((v) => typeof v === 'number' && Number.isNaN(v)) ? null : stat;
}

/** Resident set size in bytes from /proc/<pid>/status (VmRSS, printed in kB), or null (e.g. a zombie). */
export function parseVmRssBytes(text: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(text);
  return match ? Number(match[1]) * 1024 : null;
}
