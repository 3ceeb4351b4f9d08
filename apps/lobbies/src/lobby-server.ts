// What a lobby's game server is started with: the config's serverSettings, the lobby's region, and a TTL
// even when the config names none, so a lobby whose players walk away never leaves a server running
// forever (docs/api.md "Lobbies": direct start). The plan still applies on the servers side (free: 3600).
import { DEFAULT_LOBBY_SERVER_TTL, type LobbyConfig, type Plan } from '@spawnpoint/domain';
import type { StartServerRequest } from '@spawnpoint/proto';

export { DEFAULT_LOBBY_SERVER_TTL };

export function lobbyServerStart(projectId: string, plan: Plan, lobbyId: string, region: string, config: LobbyConfig): StartServerRequest {
  const s = config.serverSettings;
  return {
    projectId, plan,
    body: {
      name: `lobby-${lobbyId}`, region, version_tag: s.version_tag, version: s.version, compute_size: s.compute_size, ttl: s.ttl ?? DEFAULT_LOBBY_SERVER_TTL,
      startup_args: s.startup_args, environment_variables: s.environment_variables, service_type: s.service_type,
      custom_data: { lobby_id: lobbyId, lobby_config: config.name }, match_id: lobbyId,
    },
  };
}
