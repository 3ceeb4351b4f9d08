// The lobby aggregate's one write path (Aggregate.handle: optimistic on the cached state, once per key),
// and what follows every lobby change in the process that made it: the claims of departed players and of
// a dropped invite code are released, and the change is broadcast (a deleted lobby's server: the
// lobby-launch workflow stops it).
import { Inject, Injectable } from '@nestjs/common';
import { LobbyCommand, lobbyCodeStream, lobbyDecider, LobbyEvent, lobbyMemberStream, LobbyState, lobbyStream, LobbyView } from '@spawnpoint/domain';
import { Aggregate, Handled, HandleOptions, Platform, PLATFORM } from '@spawnpoint/platform';
import { ClaimStates } from './claim-states';
import { LobbyBroadcast } from './lobby-broadcast';
import { isLive } from './lobby-live';
import { lobbyUpdate } from './lobby-views';

/** `view`: the lobby as broadcast after the change (null when nothing changed or it is gone): the reply reuses it. */
export type LobbyHandled = Handled<LobbyState, LobbyEvent> & { view: LobbyView | null };

@Injectable()
export class LobbyAggregate extends Aggregate<LobbyCommand, LobbyEvent, LobbyState> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly claims: ClaimStates, private readonly broadcast: LobbyBroadcast) {
    super(platform.store, lobbyDecider, lobbyStream);
  }

  /** The injected clock, as the commands carry it. */
  now(): string {
    return this.platform.clock().toISOString();
  }

  /** Handle (`projectId` required: the claims and the broadcast are the project's), then release and broadcast. */
  override async handle(lobbyId: string, command: LobbyCommand | ((s: LobbyState) => LobbyCommand), options: HandleOptions & { projectId: string }): Promise<LobbyHandled> {
    const ran = await super.handle(lobbyId, command, options);
    if (ran.events.length === 0) return { ...ran, view: null };
    const { projectId } = options;
    const removed: string[] = [];
    let deleted: { reason: string } | null = null;
    let matchFound = false;
    for (const e of ran.events) {
      if (e.type === 'LobbyMatchFound') matchFound = true;
      if (e.type === 'PlayerLeft' || e.type === 'PlayerKicked') removed.push(e.data.playerId);
      if (e.type === 'LobbyDeleted') deleted = { reason: e.data.reason };
    }
    const prior = isLive(ran.before) ? ran.before : null;
    if (deleted && prior) removed.push(...prior.players.map((p) => p.id).filter((id) => !removed.includes(id)));
    const config = prior?.config ?? (isLive(ran.state) ? ran.state.config : '');
    await Promise.all(removed.map((p) => this.claims.release(lobbyMemberStream(projectId, config, p), lobbyId)));
    const codeBefore = prior?.code ?? null;
    const codeAfter = isLive(ran.state) ? ran.state.code : null;
    if (codeBefore && codeBefore !== codeAfter) await this.claims.release(lobbyCodeStream(projectId, codeBefore), lobbyId);
    const update = lobbyUpdate({ projectId, config, lobbyId, revision: ran.revision }, ran.state, deleted, removed, matchFound);
    await this.broadcast.send(update);
    return { ...ran, view: update.lobby as LobbyView | null };
  }
}
