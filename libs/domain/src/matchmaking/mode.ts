// Matchmaking modes of a lobby configuration (`lobby_configs[].matchmaking.modes`, decisions.md
// "Matchmaking"), with every default filled in, so the engine and the explain answer read one shape.
// The HTTP contract checks the raw shape; this only fills in and normalises what passed it.

export type MatchRule =
  | { type: 'difference'; field: string; maxDifference: number; expandEvery: number | null; expandBy: number; maxExpansion: number | null }
  | { type: 'equal'; field: string }
  | { type: 'latency'; maxMs: number };

export interface RoleSlot { count: number; field: string }

export interface MatchmakingMode {
  name: string;
  teams: number;
  playersPerTeam: number;
  minPlayersPerTeam: number;
  /** Asymmetric modes: role → slots per team (replaces teams × playersPerTeam); players pick in state.role. */
  roles: Record<string, RoleSlot> | null;
  maxPartySize: number;
  /** Seconds in queue before the lobby goes back to waiting with matchmakingError "timeout". */
  timeout: number;
  requireConfirmation: boolean;
  confirmationTimeout: number;
  allowBackfill: boolean;
  backfillWindow: number;
  regions: 'host' | 'vote';
  rules: MatchRule[];
}

export const MODE_DEFAULTS = { timeout: 120, confirmationTimeout: 15, backfillWindow: 60, regions: 'vote' as const };

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : fallback);
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const optNum = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function rule(raw: Raw): MatchRule | null {
  if (raw.type === 'difference' && typeof raw.field === 'string') {
    return {
      type: 'difference', field: raw.field, maxDifference: num(raw.maxDifference, 0),
      expandEvery: optNum(raw.expandEvery), expandBy: num(raw.expandBy, 0), maxExpansion: optNum(raw.maxExpansion),
    };
  }
  if (raw.type === 'equal' && typeof raw.field === 'string') return { type: 'equal', field: raw.field };
  if (raw.type === 'latency') return { type: 'latency', maxMs: num(raw.maxMs, 0) };
  return null;
}

/** One mode with its defaults. */
export function resolveMode(name: string, raw: Raw): MatchmakingMode {
  const roles = isRaw(raw.roles)
    ? Object.fromEntries(Object.entries(raw.roles).filter(([, r]) => isRaw(r)).map(([role, r]) => {
      const slot = r as Raw;
      return [role, { count: Math.max(1, int(slot.count, 1)), field: typeof slot.field === 'string' ? slot.field : 'role' }];
    }))
    : null;
  const playersPerTeam = roles
    ? Object.values(roles).reduce((n, r) => n + r.count, 0)
    : Math.max(1, int(raw.playersPerTeam, 1));
  return {
    name,
    teams: Math.max(1, int(raw.teams, 1)),
    playersPerTeam,
    minPlayersPerTeam: Math.min(playersPerTeam, Math.max(1, int(raw.minPlayersPerTeam, playersPerTeam))),
    roles,
    maxPartySize: Math.max(1, int(raw.maxPartySize, playersPerTeam)),
    timeout: num(raw.timeout, MODE_DEFAULTS.timeout),
    requireConfirmation: raw.requireConfirmation === true,
    confirmationTimeout: num(raw.confirmationTimeout, MODE_DEFAULTS.confirmationTimeout),
    allowBackfill: raw.allowBackfill === true,
    backfillWindow: num(raw.backfillWindow, MODE_DEFAULTS.backfillWindow),
    regions: raw.regions === 'host' ? 'host' : MODE_DEFAULTS.regions,
    rules: (Array.isArray(raw.rules) ? raw.rules : []).filter(isRaw).map(rule).filter((r): r is MatchRule => r !== null),
  };
}

/** The modes of a lobby configuration's raw `matchmaking` setting (none when it has none). */
export function resolveModes(matchmaking: unknown): Record<string, MatchmakingMode> {
  const modes = isRaw(matchmaking) && isRaw(matchmaking.modes) ? matchmaking.modes : {};
  return Object.fromEntries(Object.entries(modes).filter(([, m]) => isRaw(m)).map(([name, m]) => [name, resolveMode(name, m as Raw)]));
}

/** Players a full match of the mode holds. */
export const matchSize = (mode: MatchmakingMode) => mode.teams * mode.playersPerTeam;
