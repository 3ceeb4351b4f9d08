// Requests of the legacy lobby API (validated like every other route: 422 with loc/msg/type details).
import { Bool, Enum, Flag, Int, Json, Nested, Str, UuidField } from '../validation/fields';
import { PlayerIdField, RegionField } from './fields';

const ConfigName = () => Str({ min: 1, max: 128, description: 'Lobby configuration name (or id)' });

export class LegacyListQuery { @ConfigName() name!: string; @Flag({ optional: true }) publicOnly?: boolean }
export class LegacyConfigQuery { @ConfigName() name!: string }
export class LegacyKickQuery { @ConfigName() name!: string; @PlayerIdField() requesterId!: string; @Flag({ optional: true }) isKick?: boolean }

export class LegacyLobbyParams { @UuidField() id!: string }
export class LegacyCodeParams { @Str({ min: 1, max: 64 }) code!: string }
export class LegacyPlayerParams { @UuidField() id!: string; @PlayerIdField() playerId!: string }

export class LegacySettings {
  @Str({ max: 255, optional: true, nullable: true }) name?: string | null;
  @Int({ min: 1, max: 100, optional: true }) maxPlayers?: number;
  @Bool({ optional: true }) isPrivate?: boolean;
  @Bool({ optional: true }) useInviteCode?: boolean;
  @Bool({ optional: true }) allowLateJoin?: boolean;
  @RegionField({ optional: true }) region?: string;
  @Json({ optional: true }) settings?: Record<string, unknown>;
}
export class LegacyCreateBody extends LegacySettings { @PlayerIdField() host!: string }
export class LegacyUpdateBody {
  @PlayerIdField() requesterId!: string;
  @PlayerIdField({ optional: true }) host?: string;
  @Enum(['waiting', 'in_game', 'finished'], { optional: true }) status?: 'waiting' | 'in_game' | 'finished';
  @Nested(() => LegacySettings, { optional: true }) settings?: LegacySettings;
  @Json({ optional: true }) playerState?: Record<string, unknown>;
}
export class LegacyJoinBody { @PlayerIdField() playerId!: string; @Json({ optional: true }) metadata?: Record<string, unknown> }
