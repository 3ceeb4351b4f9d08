// The per-server token a game machine gets as SPAWNPOINT_SERVER_TOKEN (ADR-0016): `spt_<server id>_<32
// random bytes, base64url>`. The id says which server it claims to be; only the sha256 of the whole token
// is stored (on the server's stream), so the event store never holds a usable token.
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'spt_';
const TOKEN = /^spt_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export const serverTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A fresh token for `serverId` and the hash to record (the servers service, at each new machine). */
export function newServerToken(serverId: string): { token: string; hash: string } {
  const token = `${PREFIX}${serverId}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: serverTokenHash(token) };
}

/** The server a well-formed token claims and its hash (the gateway, before asking the servers service); null if malformed. */
export function parseServerToken(token: string): { serverId: string; hash: string } | null {
  const m = TOKEN.exec(token);
  return m ? { serverId: m[1], hash: serverTokenHash(token) } : null;
}
