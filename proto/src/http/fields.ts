// Field types the HTTP contracts share (regions, build names, environment variables, ...).
import { BUILD_NAME_PATTERN, COMPUTE_SIZE_NAMES, REGIONS } from '@spawnpoint/domain';
import { Enum, Int, Json, Str, StrMap } from '../validation/fields';

type Presence = { optional?: boolean; nullable?: boolean; description?: string };

export const PLAYER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,128}$/;
export const PLAYER_ID_MSG = 'must be 1-128 characters of [A-Za-z0-9_.:@-]';
export const LOBBY_CONFIG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME_MSG = 'must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit';

export const RegionField = (o: Presence = {}) => Enum(REGIONS, o);
export const ComputeSizeField = (o: Presence = {}) => Enum(COMPUTE_SIZE_NAMES, o);
export const BuildNameField = (o: Presence = {}) => Str({ ...o, pattern: BUILD_NAME_PATTERN, msg: NAME_MSG });
export const LobbyConfigNameField = (o: Presence = {}) => Str({ ...o, pattern: LOBBY_CONFIG_NAME, msg: NAME_MSG });
export const PlayerIdField = (o: Presence = {}) => Str({ ...o, pattern: PLAYER_ID_PATTERN, msg: PLAYER_ID_MSG });
export const EnvVarsField = (o: Presence = {}) => StrMap({
  ...o, key: /^[A-Za-z_][A-Za-z0-9_]{0,127}$/, keyMsg: 'must be a valid environment variable name', maxValue: 32_768, maxEntries: 200,
});
export const CustomDataField = (o: Presence = {}) => Json({ ...o, maxJson: 65_536 });
export const PortNameField = (o: Presence = {}) => Str({ ...o, pattern: /^[a-z0-9]([a-z0-9_-]{0,30}[a-z0-9])?$/, msg: 'lower-case letters, digits, "-" or "_", at most 32' });
export const PortNumberField = (o: Presence = {}) => Int({ ...o, min: 1, max: 65535 });
export const ProtocolField = (o: Presence = {}) => Enum(['udp', 'tcp'], o);
export const ServiceTypeField = (o: Presence = {}) => Enum(['match_based', 'persistent_world'], o);
export const ServerStatusField = (o: Presence = {}) => Enum(['launching', 'running', 'stopped'], o);
export const LobbyStatusField = (o: Presence = {}) => Enum(['waiting', 'in_queue', 'starting', 'matched', 'match_found', 'in_game'], o);
