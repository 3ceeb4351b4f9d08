// Size limits of what players store in a lobby (docs/api.md "Lobbies"): 413 beyond them.
import { RemoteError } from '@spawnpoint/messaging';

export const MAX_PLAYER_STATE_BYTES = 16 * 1024;
export const MAX_SETTINGS_BYTES = 64 * 1024;

export const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? {}));

const tooLarge = (what: string, max: number) => new RemoteError({ error: `${what} is larger than ${max / 1024} KiB`, status: 413 });

export function checkState(state: unknown): void {
  if (jsonBytes(state) > MAX_PLAYER_STATE_BYTES) throw tooLarge('state', MAX_PLAYER_STATE_BYTES);
}

export function checkSettings(settings: unknown): void {
  if (jsonBytes(settings) > MAX_SETTINGS_BYTES) throw tooLarge('settings', MAX_SETTINGS_BYTES);
}
