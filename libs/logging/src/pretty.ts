// LOG_FORMAT=pretty: each JSON line as one readable line (time, level, service, message, then the other
// fields as key=value; an error's stack below it). For a person at a terminal, not for log shippers.
import type { DestinationStream } from 'pino';

const SHOWN = new Set(['time', 'level', 'service', 'version', 'msg', 'err']);

export function prettyLine(json: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(json);
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof r.time === 'string' ? r.time.slice(11, 23) : '';
  const fields = Object.entries(r).filter(([k]) => !SHOWN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const err = r.err as { message?: string; stack?: string } | undefined;
  const head = `${time} ${String(r.level).toUpperCase().padEnd(5)} ${String(r.service)}: ${String(r.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
  const detail = err?.stack ?? err?.message;
  return detail ? `${head}${detail.replace(/^/gm, '    ')}\n` : head;
}

export function prettyDestination(out: { write(s: string): unknown } = process.stdout): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line)) };
}
