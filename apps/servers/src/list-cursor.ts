// next_token for newest-first listing: the (created_at, id) of the last row, opaque to clients.
export interface Cursor { createdAt: Date; id: string }

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');
}

export function decodeCursor(token: string): Cursor | null {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [string, string];
    const d = new Date(createdAt);
    if (typeof id !== 'string' || Number.isNaN(d.getTime())) return null;
    return { createdAt: d, id };
  } catch {
    return null;
  }
}
