// Invite codes for private lobbies; the configurations themselves are resolved in the domain.
import { randomInt } from 'node:crypto';
import { InviteCodeConfig } from '@spawnpoint/domain';

/** Upper case, without the look-alikes 0/O/1/I. */
const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const NUMERIC = '0123456789';

export function inviteCode(c: InviteCodeConfig): string {
  const alphabet = c.type === 'numeric' ? NUMERIC : ALPHANUMERIC;
  let code = c.prefix;
  for (let i = 0; i < c.length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}
