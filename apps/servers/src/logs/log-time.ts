// Parses the time parameters of the logs endpoints against a given `now` (pure: no clock here).
// Accepted: `now`; relative to now `-30s`, `-15m`, `-1h`, `-2d`; ISO 8601 date or date-time.

const RELATIVE = /^-(\d{1,9})([smhd])$/;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
// Date, optional time (seconds and fraction optional), optional offset. A space before the offset is
// a `+` the client left unencoded in the URL (it decodes to a space), so it is read as `+`.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?)?$/;

/** The instant a time parameter names, or null when it is not one of the accepted forms. */
export function parseTimeParam(value: string, now: Date): Date | null {
  const text = value.trim();
  if (text.toLowerCase() === 'now') return new Date(now.getTime());
  const rel = RELATIVE.exec(text);
  if (rel) return finite(now.getTime() - Number(rel[1]) * UNIT_MS[rel[2]]);
  return parseIso(text);
}

function parseIso(text: string): Date | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  // No offset: UTC, so the meaning never depends on the machine's time zone.
  let offsetMinutes = 0;
  if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const utc = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  utc.setUTCFullYear(year);
  return finite(utc.getTime() - offsetMinutes * 60_000);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

function finite(ms: number): Date | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d;
}
