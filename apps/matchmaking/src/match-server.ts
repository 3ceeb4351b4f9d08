// What a match's game server is started with (decisions.md "Matchmaking"): the lobby configuration's
// serverSettings, the match's region, `match_id` = the match id and `custom_data.match` = {mode, teams,
// lobbies}; a TTL even when the config names none, as for a lobby's direct start. Pool first (the
// servers service claims a ready pool server when one fits).
import { DEFAULT_LOBBY_SERVER_TTL, type LobbyConfig, type MatchState, type Plan } from '@spawnpoint/domain';
import type { StartServerRequest } from '@spawnpoint/proto';

export function matchServerStart(match: Exclude<MatchState, { status: 'none' }>, plan: Plan, config: LobbyConfig): StartServerRequest {
  const s = config.serverSettings;
  return {
    projectId: match.projectId, plan,
    body: {
      name: `match-${match.matchId}`, region: match.region, version_tag: s.version_tag, version: s.version, compute_size: s.compute_size,
      ttl: s.ttl ?? DEFAULT_LOBBY_SERVER_TTL, startup_args: s.startup_args, environment_variables: s.environment_variables, service_type: s.service_type,
      custom_data: matchCustomData(match, config.name),
      match_id: match.matchId,
    },
  };
}

/** What the game reads of its match: {match: {mode, teams, lobbies}, lobby_config} (the lobbies still in it). */
export function matchCustomData(match: Exclude<MatchState, { status: 'none' }>, configName: string): Record<string, unknown> {
  const left = 'left' in match ? new Set(match.left) : new Set<string>();
  return { match: { mode: match.mode, teams: match.teams, lobbies: match.lobbies.map((l) => l.lobbyId).filter((l) => !left.has(l)) }, lobby_config: configName };
}
