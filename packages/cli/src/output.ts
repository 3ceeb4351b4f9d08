// What a command prints: JSON with --json (one document on stdout, nothing else there), else a table or
// lines for people. Progress and notes go to stderr so stdout stays parseable.
export interface Output {
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

export function print(o: Output, value: unknown, human: () => string): void {
  o.out(o.json ? JSON.stringify(value, null, 2) : human());
}

/** A plain table: columns padded to their widest cell. */
export function table<T extends object>(rows: readonly T[], columns: (keyof T & string)[]): string {
  if (!rows.length) return '(none)';
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return v.map(cell).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A progress bar on stderr (only on a terminal; elsewhere one line at the end). */
export function progressBar(o: Output, label: string): (sent: number, total: number) => void {
  const tty = Boolean(process.stderr.isTTY);
  let last = -1;
  return (sent, total) => {
    const pct = total ? Math.floor((sent / total) * 100) : 100;
    if (pct === last) return;
    last = pct;
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}% ${formatBytes(sent)}/${formatBytes(total)}${pct === 100 ? '\n' : ''}`);
    } else if (pct === 100) {
      o.err(`${label}: ${formatBytes(total)} sent`);
    }
  };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
