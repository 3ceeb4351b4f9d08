// next_token for oldest-first log pages: the (ts, id) of the last line served, opaque to clients.
export interface LogCursor { ts: Date; id: string }

const ID = /^[1-9][0-9]{0,18}$/; // a positive bigint (log_lines.id)

export function encodeLogCursor(c: LogCursor): string {
  return Buffer.from(JSON.stringify([c.ts.toISOString(), c.id])).toString('base64url');
}

/** The cursor a token carries, or null for anything this service did not issue. */
export function decodeLogCursor(token: string): LogCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [ts, id] = value as unknown[];
    if (typeof ts !== 'string' || typeof id !== 'string' || !ID.test(id)) return null;
    const d = new Date(ts);
    if (Number.isNaN(d.getTime()) || d.toISOString() !== ts) return null;
    return { ts: d, id };
  } catch {
    return null;
  }
}
