// What the v3 lobby controllers share: the calling player (verified with the project's identity
// provider when it has one) and the OpenAPI pieces of the player routes.
import { parse } from '../http/validation';
import type { AuthedRequest } from '../http/guard';
import { PlayerIdentity, PLAYER_TOKEN_HEADER } from '../players';
import { ErrorBody, Lobby, LobbyConfigParams, PlayerIdHeader } from '../schemas';

export const playerHeaders = {
  'x-player-id': { required: true, description: 'The player: 1-128 characters of [A-Za-z0-9_.:@-]' },
  [PLAYER_TOKEN_HEADER]: { required: false, description: "Required when the project's auth_config has a provider: a token proving x-player-id" },
};
export const errors = {
  401: { description: 'Missing or unknown api-key, or the player token does not prove x-player-id', schema: ErrorBody },
  404: { description: 'Unknown lobby configuration, or the player is not in a lobby of it', schema: ErrorBody },
  422: { description: 'Invalid request', schema: ErrorBody },
  429: { description: 'Rate limit (per player) exceeded', schema: ErrorBody },
};
export const hostErrors = { ...errors, 403: { description: 'Only the host may do this', schema: ErrorBody } };
export const lobbyReply = { 200: { description: 'Lobby', schema: Lobby } };

export interface LobbyPlayer { projectId: string; config: string; playerId: string }

/** The calling player of a player route. */
export async function lobbyPlayer(identity: PlayerIdentity, req: AuthedRequest, headers: unknown, params: unknown): Promise<LobbyPlayer> {
  const { 'x-player-id': playerId } = parse(PlayerIdHeader, headers, 'header');
  const { config } = parse(LobbyConfigParams, params, 'path');
  const projectId = req.principal!.projectId;
  const token = (headers as Record<string, unknown>)[PLAYER_TOKEN_HEADER];
  await identity.verify(projectId, playerId, typeof token === 'string' ? token : undefined);
  return { projectId, config, playerId };
}
