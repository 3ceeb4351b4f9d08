// The lobbies read model: one row per live lobby with its folded state (deleted lobbies are removed).
import { LiveLobbyState, lobbyDecider, LobbyEvent, LobbyState } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';

export const lobbiesProjection: Projection = {
  name: 'lobbies',
  categories: ['lobby'],
  async apply(recorded: RecordedEvent, tx: Tx) {
    const event = { type: recorded.type, data: recorded.data } as LobbyEvent;
    const id = event.data.lobbyId;
    const row = event.type === 'LobbyCreated' ? null : await tx.lobby.findUnique({ where: { id }, select: { state: true } });
    if (event.type !== 'LobbyCreated' && !row) return; // deleted already (replayed after a rebuild)
    const before = (row?.state as unknown as LobbyState | undefined) ?? lobbyDecider.initialState;
    const after = lobbyDecider.evolve(before, event);
    if (after.status === 'none') return;
    if (after.status === 'deleted') {
      await tx.lobby.deleteMany({ where: { id } });
      return;
    }
    const s: LiveLobbyState = { ...after, projectId: after.projectId ?? String(recorded.metadata?.projectId ?? '') };
    const columns = {
      projectId: s.projectId, config: s.config, status: s.status, region: s.region, isPrivate: s.isPrivate,
      playerCount: s.players.length, maxPlayers: s.maxPlayers, serverId: s.server?.instance_id ?? null,
      state: s as unknown as object, createdAt: new Date(s.createdAt), updatedAt: new Date(s.updatedAt),
    };
    await tx.lobby.upsert({ where: { id }, create: { id, ...columns }, update: columns });
  },
};
