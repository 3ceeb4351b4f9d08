import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainError, LobbyEvent, lobbyDecider, LobbyState, lobbyStream } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { LobbyStreamEvent, OpenedLobbyStream, OpenLobbyStreamRequest } from '@spawnpoint/proto';
import { isLive, LobbyStates, MyLobby } from '../lobby-states';
import { lobbyStreamEvent, openedLobbyStream } from '../lobby-views';
import { Presence } from '../presence';

export class OpenLobbyStream extends BusQuery<OpenLobbyStreamRequest, OpenedLobbyStream> {}

/**
 * What a (re)connecting stream needs: the events after `lastEventId` (`<lobbyId>:<revision>`) of a
 * lobby the player was in at that point, then the player's lobby now.
 */
@Injectable()
@QueryHandler(OpenLobbyStream)
export class OpenLobbyStreamHandler implements IQueryHandler<OpenLobbyStream> {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform, private readonly configs: LobbyConfigs, private readonly states: LobbyStates,
    @Inject(Presence) private readonly presence: Presence,
  ) {}

  async execute({ request: r }: OpenLobbyStream): Promise<OpenedLobbyStream> {
    const config = await this.configs.get(r.projectId, r.config);
    const replay = r.lastEventId ? await this.replay(r.projectId, config.name, r.playerId, r.lastEventId) : [];
    let mine: MyLobby | null = null;
    try {
      mine = await this.states.mine({ ...r, config: config.name });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'not_found') || replay.length === 0) throw err;
    }
    if (mine) this.presence.touch(r.projectId, mine.lobbyId, r.playerId);
    return openedLobbyStream(replay, mine);
  }

  private async replay(projectId: string, config: string, playerId: string, lastEventId: string): Promise<LobbyStreamEvent[]> {
    const m = /^([0-9a-f-]{36}):(\d+)$/.exec(lastEventId);
    if (!m) return [];
    const [, lobbyId, rev] = m;
    const after = Number(rev);
    const { events } = await this.platform.store.readStream(lobbyStream(lobbyId));
    let state: LobbyState = lobbyDecider.initialState;
    const out: LobbyStreamEvent[] = [];
    for (const e of events) {
      state = lobbyDecider.evolve(state, { type: e.type, data: e.data } as LobbyEvent);
      if (e.revision === after) {
        // Only a member of this lobby of this project and config at that point may read on.
        if (!isLive(state) || state.projectId !== projectId || state.config !== config || !state.players.some((p) => p.id === playerId)) return [];
      }
      if (e.revision <= after) continue;
      if (state.status === 'deleted') {
        out.push(lobbyStreamEvent(lobbyId, e.revision, state));
        return out;
      }
      if (!isLive(state)) return out;
      const replayed = lobbyStreamEvent(lobbyId, e.revision, state);
      out.push(replayed);
      if (e.type === 'LobbyMatchFound') out.push({ ...replayed, event: 'match_found' });
      if (!state.players.some((p) => p.id === playerId)) return out;
    }
    return out;
  }
}
