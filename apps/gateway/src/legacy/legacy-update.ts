// PUT /lobbies/{id}: the legacy API's one update route, as the published document writes it and as the
// Unity SDK sends it, applied as v3 changes one after another.
import type { LobbyView } from '@spawnpoint/domain';
import { SUBJECTS } from '@spawnpoint/proto';
import { validationError } from '../http/validation';
import { Ctx, defined, LegacyLobbies } from './legacy-lobbies';
import { finishedLobby, LegacyLobby, legacyStatus } from './legacy-lobby';
import { LegacyUpdateBody } from './schemas';

/**
 * The requester must be a member of the lobby (else 404). In order, each checked as its v3 route:
 * settings (host) → playerState (the requester's, or with targetPlayerId another member's: host) →
 * matchmaking start/cancel (host) → status (host) → host (transfer, host). Not one transaction: a failing
 * step answers its error and the earlier ones stay.
 */
export async function updateLobby(h: LegacyLobbies, ctx: Ctx, lobbyId: string, b: LegacyUpdateBody): Promise<LegacyLobby> {
  const who = { ...ctx, playerId: b.requesterId, lobbyId };
  let lobby = await h.request(SUBJECTS.lobbies.getMine, who);
  const changes = settingsChanges(b);
  if (Object.keys(changes).length > 0) lobby = await h.request(SUBJECTS.lobbies.updateSettings, { ...who, changes });
  if (b.playerState) {
    const target = b.targetPlayerId !== undefined && b.targetPlayerId !== b.requesterId ? { targetId: b.targetPlayerId } : {};
    lobby = await h.request(SUBJECTS.lobbies.updateMyState, { ...who, state: b.playerState, ...target });
  }
  if (b.matchmaking) lobby = await matchmaking(h, who, b.matchmaking);
  if (b.status === 'finished') {
    const last = await h.legacy(ctx, lobby);
    await h.request(SUBJECTS.lobbies.close, who);
    return finishedLobby(last, new Date().toISOString());
  }
  if (b.status === 'in_game' && lobby.status !== 'in_game' && lobby.status !== 'starting') lobby = await h.request(SUBJECTS.lobbies.start, who);
  if (b.status === 'waiting' && legacyStatus(lobby.status) === 'in_game') lobby = await h.request(SUBJECTS.lobbies.endMatch, who);
  if (b.host !== undefined && b.host !== lobby.host) lobby = await h.request(SUBJECTS.lobbies.transferHost, { ...who, targetId: b.host });
  return h.legacy(ctx, lobby);
}

function matchmaking(h: LegacyLobbies, who: Ctx & { playerId: string; lobbyId: string }, m: NonNullable<LegacyUpdateBody['matchmaking']>): Promise<LobbyView> {
  if (m.action === 'cancel') return h.request(SUBJECTS.lobbies.cancelMatchmaking, who);
  if (m.mode === undefined) throw validationError([{ loc: ['body', 'matchmaking', 'mode'], msg: 'Field required to start matchmaking', type: 'missing' }]);
  return h.request(SUBJECTS.lobbies.startMatchmaking, { ...who, mode: m.mode });
}

/**
 * The v3 settings change: the published nested `settings` (LobbySettings, its custom settings in
 * `settings.settings`) and the same fields at the top level (the Unity SDK sends them so); nested wins.
 * useInviteCode changes nothing of its own: every lobby has a code, whatever its privacy.
 */
export function settingsChanges(b: LegacyUpdateBody): Record<string, unknown> {
  const n = b.settings ?? {};
  const pick = <K extends 'name' | 'maxPlayers' | 'isPrivate' | 'allowLateJoin' | 'region'>(k: K) => (n[k] !== undefined ? n[k] : b[k]);
  return defined({
    name: pick('name'), maxPlayers: pick('maxPlayers'), isPrivate: pick('isPrivate'), allowLateJoin: pick('allowLateJoin'), region: pick('region'), settings: n.settings,
  });
}
