// next_token of time-ordered pages (server lists, log lines): the (time, id) of the last item served,
// opaque to clients. A token this service did not issue decodes to null (a 422), never to a query.
export interface TimeCursor { at: Date; id: string }

export function encodeTimeCursor(c: TimeCursor): string {
  return Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString('base64url');
}

/** `idPattern`: what an id of this page's items looks like (checked before it reaches SQL). */
export function decodeTimeCursor(token: string, idPattern: RegExp): TimeCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string' || !idPattern.test(id)) return null;
    const d = new Date(at);
    if (Number.isNaN(d.getTime()) || d.toISOString() !== at) return null;
    return { at: d, id };
  } catch {
    return null;
  }
}
