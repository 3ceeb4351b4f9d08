// Requests of the legacy lobby API (validated like every other route: 422 with loc/msg/type details).
import { z } from 'zod';
import { PLAYER_ID_PATTERN, Region, Uuid } from '../schemas';

const JsonObject = z.record(z.string(), z.unknown());
const PlayerId = z.string().regex(PLAYER_ID_PATTERN, 'must be 1-128 characters of [A-Za-z0-9_.:@-]');
const Bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const ConfigName = z.string().min(1).max(128).describe('Lobby configuration name (or id)');

export const LegacyListQuery = z.strictObject({ name: ConfigName, publicOnly: Bool.optional() });
export const LegacyConfigQuery = z.strictObject({ name: ConfigName });
export const LegacyKickQuery = z.strictObject({ name: ConfigName, requesterId: PlayerId, isKick: Bool.optional() });

export const LegacyLobbyParams = z.strictObject({ id: Uuid });
export const LegacyCodeParams = z.strictObject({ code: z.string().min(1).max(64) });
export const LegacyPlayerParams = z.strictObject({ id: Uuid, playerId: PlayerId });

const Settings = {
  name: z.string().max(255).nullable().optional(),
  maxPlayers: z.number().int().min(1).max(100).optional(),
  isPrivate: z.boolean().optional(),
  useInviteCode: z.boolean().optional(),
  allowLateJoin: z.boolean().optional(),
  region: Region.optional(),
  settings: JsonObject.optional(),
};

export const LegacyCreateBody = z.strictObject({ ...Settings, host: PlayerId });
export const LegacySettings = z.strictObject(Settings);
export const LegacyUpdateBody = z.strictObject({
  requesterId: PlayerId,
  host: PlayerId.optional(),
  status: z.enum(['waiting', 'in_game', 'finished']).optional(),
  settings: LegacySettings.optional(),
  playerState: JsonObject.optional(),
});
export const LegacyJoinBody = z.strictObject({ playerId: PlayerId, metadata: JsonObject.optional() });
