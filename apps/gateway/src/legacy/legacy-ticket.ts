// The legacy matchmaker's shapes (docs/api.md "Legacy matchmaker"): a ticket is a solo lobby's search, a
// match is a matchmade game server. Pure functions over the v3 Lobby and Server JSON, unit-tested alone.
import { createHash } from 'node:crypto';
import type { LobbyView, MatchmakingMode, ServerResource } from '@spawnpoint/domain';

export type TicketStatus = 'In Queue' | 'matched' | 'cancelled' | 'expired' | 'deleted' | 'abandoned';
export type MatchStatus = 'created' | 'active' | 'ended';

/** The lobby setting that marks a lobby as a legacy ticket and keeps what the ticket was created with. */
export const TICKET_SETTING = 'matchmakerTicket';

/** What a ticket was created with (kept in its lobby's settings under TICKET_SETTING). */
export interface TicketInfo {
  matchmaker_id: string;
  mode: string;
  regions: string[];
  elo?: number;
  gameBuild?: string;
}

export interface LegacyPort { name: string; internal_port: number; external_port: number; protocol: 'udp' | 'tcp'; host: string; tls_enabled: boolean }
export interface LegacyServer {
  instance_id: string;
  name: string;
  network_ports: LegacyPort[];
  status: 'launching' | 'running' | 'stopped';
  service_type?: string;
  compute_size?: string;
  region?: string;
  version_tag?: string;
  game_build?: string;
  custom_data: Record<string, unknown> | null;
}

export interface LegacyTicket {
  ticket_id: string;
  player_id: string;
  matchmaker_id: string;
  status: TicketStatus;
  created_at: number;
  regions: string[];
  elo?: number;
  gameBuild?: string;
  /** Ours (additive): the lobby configuration's mode the ticket searches in. */
  mode?: string;
  match?: LegacyMatch;
}

export interface LegacyMatch {
  match_id: string;
  matchmaker_id: string;
  gameBuild: string;
  status: MatchStatus;
  created_at: number;
  backfill: boolean;
  maxPlayers: number;
  currentPlayers: number;
  players: LegacyTicket[];
  teams: LegacyTicket[][];
  server: LegacyServer;
  /** Ours (additive): the mode the match was made in. */
  mode: string;
}

/** The part of the Server resource this view reads (a v3 server as listed, or a test's fixture). */
export type ServerJson = Pick<ServerResource, 'instance_id' | 'name' | 'status' | 'network_ports' | 'custom_data' | 'match_id' | 'created_at'>
  & Partial<Pick<ServerResource, 'service_type' | 'compute_size' | 'region' | 'version_tag' | 'version'>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ticket data of a lobby that is a legacy ticket; null for any other lobby. */
export function ticketInfo(lobby: Pick<LobbyView, 'settings'>): TicketInfo | null {
  const t = lobby.settings?.[TICKET_SETTING];
  if (!isObject(t) || typeof t.matchmaker_id !== 'string' || typeof t.mode !== 'string') return null;
  return {
    matchmaker_id: t.matchmaker_id,
    mode: t.mode,
    regions: Array.isArray(t.regions) ? t.regions.filter((r): r is string => typeof r === 'string') : [],
    ...(typeof t.elo === 'number' ? { elo: t.elo } : {}),
    ...(typeof t.gameBuild === 'string' ? { gameBuild: t.gameBuild } : {}),
  };
}

/**
 * The v3 lobby status as a ticket status: searching (or matched, its server not yet given) → "In Queue";
 * with its game server → "matched"; back to waiting → "expired" (the search timed out, or a confirmation
 * did), "abandoned" (the match's server could not start), "cancelled" (cancelled, declined, or its game ended).
 */
export function ticketStatus(lobby: Pick<LobbyView, 'status' | 'server' | 'matchmakingError'>): TicketStatus {
  switch (lobby.status) {
    case 'in_queue':
    case 'match_found':
      return 'In Queue';
    case 'matched':
    case 'starting':
    case 'in_game':
      return lobby.server ? 'matched' : 'In Queue';
    default:
      if (lobby.matchmakingError === 'timeout' || lobby.matchmakingError === 'confirmation_timeout') return 'expired';
      if (lobby.matchmakingError && lobby.matchmakingError !== 'declined') return 'abandoned';
      return 'cancelled';
  }
}

/** A player's ticket in a lobby (a ticket's own lobby has one player; a v3 party in a match has more). */
export function toTicket(lobby: LobbyView, matchmakerId: string, playerId: string = lobby.host, match?: LegacyMatch): LegacyTicket {
  const info = ticketInfo(lobby);
  const status = ticketStatus(lobby);
  return {
    ticket_id: lobby.id,
    player_id: playerId,
    matchmaker_id: info?.matchmaker_id ?? matchmakerId,
    status,
    created_at: Date.parse(lobby.createdAt),
    regions: info?.regions.length ? info.regions : [lobby.region],
    ...(info?.elo !== undefined ? { elo: info.elo } : {}),
    ...(info?.gameBuild !== undefined ? { gameBuild: info.gameBuild } : {}),
    ...(lobby.matchmaking || info ? { mode: lobby.matchmaking?.mode ?? info!.mode } : {}),
    ...(status === 'matched' && match ? { match } : {}),
  };
}

/**
 * The v3 server as the legacy Server: its connection details. `started_at`, `stopped_at`, `ttl` and
 * `startup_args` are left out (the published shape types them as objects; GET /v3/servers/{id} has them).
 */
export function toLegacyServer(s: ServerJson): LegacyServer {
  return {
    instance_id: s.instance_id,
    name: s.name,
    network_ports: s.network_ports.map((p) => ({ name: p.name, internal_port: p.internal_port, external_port: p.external_port, protocol: p.protocol, host: p.host, tls_enabled: p.tls_enabled })),
    status: s.status,
    ...(s.service_type ? { service_type: s.service_type } : {}),
    ...(s.compute_size ? { compute_size: s.compute_size } : {}),
    ...(s.region ? { region: s.region } : {}),
    ...(s.version_tag ? { version_tag: s.version_tag } : {}),
    ...(s.version !== undefined && s.version !== null ? { game_build: String(s.version) } : {}),
    custom_data: s.custom_data,
  };
}

/** launching → created, running → active, stopped → ended. */
export function matchStatus(serverStatus: ServerJson['status']): MatchStatus {
  return serverStatus === 'running' ? 'active' : serverStatus === 'launching' ? 'created' : 'ended';
}

/** The match a matchmade server carries (custom_data.match and lobby_config); null for a server of no match of `config`. */
export function serverMatch(s: Pick<ServerJson, 'custom_data'>, config?: string): { mode: string; teams: string[][]; lobbies: string[] } | null {
  const custom = s.custom_data;
  if (!isObject(custom) || !isObject(custom.match) || (config !== undefined && custom.lobby_config !== config)) return null;
  const m = custom.match;
  if (typeof m.mode !== 'string') return null;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { mode: m.mode, teams: Array.isArray(m.teams) ? m.teams.map(strings) : [], lobbies: strings(m.lobbies) };
}

/** Players a match of the mode holds (role modes: every role's count on every team). */
export function modeCapacity(mode: Pick<MatchmakingMode, 'teams' | 'playersPerTeam' | 'roles'>): number {
  const perTeam = mode.roles ? Object.values(mode.roles).reduce((n, r) => n + r.count, 0) : mode.playersPerTeam;
  return mode.teams * perTeam;
}

/** A stable UUID for a player whose ticket (lobby) no longer exists, so the match still names one. */
export function goneTicketId(matchId: string, playerId: string): string {
  const h = createHash('sha256').update(`legacy-ticket\n${matchId}\n${playerId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface MatchContext {
  matchmakerId: string;
  /** The mode as configured now; null when the configuration no longer has it. */
  mode: Pick<MatchmakingMode, 'teams' | 'playersPerTeam' | 'roles' | 'allowBackfill'> | null;
  /** The match's lobbies that still exist. */
  lobbies: LobbyView[];
}

/** A matchmade server as the legacy Match: its teams' players as tickets of their lobbies. */
export function toMatch(s: ServerJson, c: MatchContext): LegacyMatch {
  const m = serverMatch(s) ?? { mode: '', teams: [], lobbies: [] };
  const created = Date.parse(s.created_at);
  const ticketOf = (playerId: string): LegacyTicket => {
    const lobby = c.lobbies.find((l) => l.players.some((p) => p.id === playerId));
    if (lobby) return toTicket(lobby, c.matchmakerId, playerId);
    return { ticket_id: goneTicketId(s.match_id, playerId), player_id: playerId, matchmaker_id: c.matchmakerId, status: 'deleted', created_at: created, regions: s.region ? [s.region] : [] };
  };
  const teams = m.teams.map((t) => t.map(ticketOf));
  const players = teams.flat();
  const builds = players.map((p) => p.gameBuild).filter((b): b is string => b !== undefined);
  return {
    match_id: s.match_id,
    matchmaker_id: c.matchmakerId,
    gameBuild: builds[0] ?? (s.version !== undefined && s.version !== null ? String(s.version) : s.version_tag ?? ''),
    status: matchStatus(s.status),
    created_at: created,
    backfill: c.mode?.allowBackfill ?? false,
    maxPlayers: c.mode ? modeCapacity(c.mode) : players.length,
    currentPlayers: players.length,
    players,
    teams,
    server: toLegacyServer(s),
    mode: m.mode,
  };
}

/** The mode of a new ticket: the first preferred mode the configuration has, else its first mode; null when it has none. */
export function ticketMode(modes: Record<string, unknown>, preferred: string[] | undefined): string | null {
  const names = Object.keys(modes);
  return preferred?.find((p) => names.includes(p)) ?? names[0] ?? null;
}

/** The player state field a ticket's `elo` goes to: the mode's difference rule's field, else `mmr`. */
export function ratingField(mode: Pick<MatchmakingMode, 'rules'>): string {
  const rule = mode.rules.find((r) => r.type === 'difference');
  return rule && rule.type === 'difference' ? rule.field : 'mmr';
}
