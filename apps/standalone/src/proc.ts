// Small /proc readers for the standalone start-up checks (Linux).
import { readFileSync } from 'node:fs';

/** /proc/<pid>/stat field 22 (start time in clock ticks after boot) of a live process, or null. */
export function startTimeOf(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): a zombie has finished.
    return fields[0] === 'Z' || fields[0] === 'X' ? null : Number(fields[19]);
  } catch {
    return null;
  }
}

/** The command line of a live process, arguments split, or null. */
export function commandLineOf(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    return null;
  }
}
