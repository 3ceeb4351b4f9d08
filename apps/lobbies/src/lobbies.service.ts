// The lobbies service: the Lobby aggregate over the bus. Capacity and every lobby change are decided on
// the lobby's stream; "one lobby per player per config" and "one live lobby per invite code" on claim
// streams of their own (claim.ts), so any number of replicas stay exact. Every change is broadcast on
// `lobbies.updates` for the gateways' event streams. A broadcast can be lost (NATS core is at most once):
// the next update carries the whole lobby, a client that reconnects with Last-Event-ID is replayed from the
// store, and a lost deletion is repeated once a gateway still reports a stream on the deleted lobby (sweeper).
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  ClaimCommand, claimDecider, ClaimState, DomainError, LobbyConfig, resolveLobbyConfig, invalid, LiveLobbyState, lobbyCodeStream, LobbyCommand, lobbyDecider, LobbyEvent, lobbyMemberStream, LobbyState,
  lobbyStream, lobbyView, LobbyView, notFound,
} from '@spawnpoint/domain';
import { currentCommand, RemoteError, Unsubscribe } from '@spawnpoint/messaging';
import { appliedBy, Handlers, idFromCommand, Platform, PLATFORM, ServiceHost, StateCache } from '@spawnpoint/platform';
import {
  AdminLobbyRequest, BrowseLobbiesRequest, CreateLobbyRequest, DeletedLobby, JoinLobbyRequest, LeftLobby, LobbyPage, LobbyPresence,
  LobbyStreamEvent, LobbyUpdate, OpenedLobbyStream, OpenLobbyStreamRequest, PlayerLobbyRequest, ProjectView, ServerView, SUBJECTS,
  TargetPlayerRequest, UpdateLobbySettingsRequest, UpdatePlayerStateRequest,
} from '@spawnpoint/proto';
import { lobbiesProjection } from './lobbies.projection';
import { lobbyServerStart } from './lobby-server';
import { inviteCode } from './invite-code';
import { browseLobbies } from './lobby-queries';
import { Presence } from './presence';
import { LobbySweeper } from './sweeper';

/** A claim whose holder has not (yet) shown it in the lobby is respected this long: an in-flight join. */
const CLAIM_GRACE_MS = 10_000;
/** Project settings are re-read after this long, and at once when a project event says they changed. */
const SETTINGS_TTL_MS = 5_000;
export const MAX_PLAYER_STATE_BYTES = 16 * 1024;
export const MAX_SETTINGS_BYTES = 64 * 1024;

const tooLarge = (what: string, max: number) => new RemoteError({ error: `${what} is larger than ${max / 1024} KiB`, status: 413 });
const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? {}));
const isLive = (s: LobbyState): s is LiveLobbyState => s.status !== 'none' && s.status !== 'deleted';

interface Ran { state: LobbyState; events: LobbyEvent[]; revision: number }

@Injectable()
export class LobbiesService extends ServiceHost {
  readonly presence = new Presence();
  /** Lobby and claim states of this process, read on from their cached revision (exact, one small query). */
  private readonly lobbies = new StateCache(this.store, lobbyDecider);
  private readonly claims = new StateCache(this.store, claimDecider);
  private readonly settingsCache = new Map<string, { at: number; value: Promise<ProjectView> }>();
  private readonly unsubscribes: Unsubscribe[] = [];
  private sweeper: LobbySweeper | null = null;

  constructor(@Inject(PLATFORM) platform: Platform) {
    super(platform, 'lobbies', ['lobby']);
  }

  protected readModels() {
    return [lobbiesProjection()];
  }

  protected override handlers(): Handlers {
    const L = SUBJECTS.lobbies;
    return {
      [L.create]: (r: CreateLobbyRequest) => this.create(r),
      [L.browse]: (r: BrowseLobbiesRequest) => this.browse(r),
      [L.getMine]: (r: PlayerLobbyRequest) => this.getMine(r),
      [L.join]: (r: JoinLobbyRequest) => this.join(r),
      [L.leave]: (r: PlayerLobbyRequest) => this.leave(r),
      [L.updateMyState]: (r: UpdatePlayerStateRequest) => this.updateMyState(r),
      [L.updateSettings]: (r: UpdateLobbySettingsRequest) => this.updateSettings(r),
      [L.kick]: (r: TargetPlayerRequest) => this.kick(r),
      [L.transferHost]: (r: TargetPlayerRequest) => this.transferHost(r),
      [L.start]: (r: PlayerLobbyRequest) => this.start(r),
      [L.heartbeat]: (r: PlayerLobbyRequest) => this.heartbeat(r),
      [L.endMatch]: (r: PlayerLobbyRequest) => this.endMatch(r),
      [L.close]: (r: PlayerLobbyRequest) => this.close(r),
      [L.openStream]: (r: OpenLobbyStreamRequest) => this.openStream(r),
      [L.adminGet]: (r: AdminLobbyRequest) => this.adminGet(r),
      [L.adminDelete]: (r: AdminLobbyRequest) => this.adminDelete(r),
    };
  }

  protected override async starting(): Promise<void> {
    this.unsubscribes.push(
      await this.bus.listen(SUBJECTS.lobbies.presence, (p: LobbyPresence) => this.presence.record(p.entries, Date.now())),
      await this.bus.consume({ durable: 'lobbies-projects', filters: ['project.ProjectSettingsUpdated', 'project.ProjectPlanChanged'] }, (e) => {
        this.settingsCache.delete(String((e.data as { projectId?: string }).projectId));
      }),
      await this.bus.consume({ durable: 'lobbies-servers', filters: ['server.ServerRunning', 'server.ServerStopped'] }, (e) =>
        this.onServerEvent(e.type, (e.data as { serverId: string }).serverId)),
    );
    this.sweeper = new LobbySweeper(this, this.db, this.bus, this.presence, this.config.lobbySweepMs);
    this.sweeper.start();
  }

  protected override async stopping(): Promise<void> {
    await this.sweeper?.stop();
    for (const u of this.unsubscribes.splice(0)) await u().catch(() => undefined);
  }

  // ---- player routes -------------------------------------------------------------------------------

  async create(r: CreateLobbyRequest): Promise<LobbyView> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const b = r.body;
    if (jsonBytes(b.state) > MAX_PLAYER_STATE_BYTES) throw tooLarge('state', MAX_PLAYER_STATE_BYTES);
    if (jsonBytes(b.settings) > MAX_SETTINGS_BYTES) throw tooLarge('settings', MAX_SETTINGS_BYTES);
    // Created by a command with an id: the lobby's id is derived from it, so a create sent again after its
    // answer was lost (even across a restart) answers the lobby it created.
    const commandId = currentCommand()?.commandId;
    const lobbyId = commandId ? idFromCommand('lobby', r.projectId, commandId) : randomUUID();
    if (commandId) {
      const { state } = await this.loadLobby(lobbyId);
      if (isLive(state) && state.players.some((p) => p.id === r.playerId)) return lobbyView(state);
      if (state.status !== 'none') throw new DomainError('conflict', 'the lobby this request created is closed or was left');
    }
    const isPrivate = b.isPrivate ?? false;
    await this.claimMembership(r.projectId, config.name, r.playerId, lobbyId);
    let code: string | null = null;
    try {
      if (isPrivate) code = await this.claimFreeCode(r.projectId, config, lobbyId);
      const ran = await this.run(r.projectId, lobbyId, {
        type: 'CreateLobby', lobbyId, projectId: r.projectId, config: config.name, hostId: r.playerId, name: b.name ?? null,
        maxPlayers: b.maxPlayers ?? config.maxPlayers, region: b.region ?? 'us-east', isPrivate, allowLateJoin: b.allowLateJoin ?? false,
        settings: b.settings ?? {}, hostState: b.state ?? {}, code, now: this.now(),
      });
      this.presence.touch(r.projectId, lobbyId, r.playerId);
      return lobbyView(ran.state);
    } catch (err) {
      await this.release(lobbyMemberStream(r.projectId, config.name, r.playerId), lobbyId);
      if (code) await this.release(lobbyCodeStream(r.projectId, code), lobbyId);
      throw err;
    }
  }

  async browse(r: BrowseLobbiesRequest): Promise<LobbyPage<LobbyView>> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    // Browse shows what this process has seen: a batch held back under load is applied first.
    await this.projections.settle('lobby-');
    return browseLobbies(this.db, { ...r, config: config.name });
  }

  async getMine(r: PlayerLobbyRequest): Promise<LobbyView> {
    const { lobbyId, state } = await this.myLobby(r);
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return lobbyView(state);
  }

  async join(r: JoinLobbyRequest): Promise<LobbyView> {
    if ((r.lobbyId === undefined) === (r.code === undefined)) throw invalid('give exactly one of lobbyId and code', ['body', r.lobbyId === undefined ? 'lobbyId' : 'code']);
    const config = await this.lobbyConfig(r.projectId, r.config);
    if (jsonBytes(r.state) > MAX_PLAYER_STATE_BYTES) throw tooLarge('state', MAX_PLAYER_STATE_BYTES);
    const lobbyId = r.lobbyId ?? (await this.lobbyWithCode(r.projectId, r.code!));
    // Project and config of a lobby never change: a cached state answers that without a read.
    const { state } = this.lobbies.peek(lobbyStream(lobbyId)) ?? (await this.loadLobby(lobbyId));
    if (!isLive(state) || state.projectId !== r.projectId || state.config !== config.name) throw notFound('lobby');
    const claimedNow = await this.claimMembership(r.projectId, config.name, r.playerId, lobbyId);
    try {
      const ran = await this.run(r.projectId, lobbyId, { type: 'JoinLobby', playerId: r.playerId, state: r.state ?? {}, now: this.now() });
      this.presence.touch(r.projectId, lobbyId, r.playerId);
      return lobbyView(ran.state);
    } catch (err) {
      if (claimedNow) await this.release(lobbyMemberStream(r.projectId, config.name, r.playerId), lobbyId);
      const first = await this.joinedBefore(err, lobbyId);
      if (first) return first;
      throw err;
    }
  }

  /** A join sent again (same command id) after its answer was lost, even across a restart: the lobby, not a 409. */
  private async joinedBefore(err: unknown, lobbyId: string): Promise<LobbyView | null> {
    const commandId = currentCommand()?.commandId;
    if (!commandId || !(err instanceof DomainError && err.code === 'conflict')) return null;
    if (!(await appliedBy(this.store, lobbyStream(lobbyId), commandId))) return null;
    const { state } = await this.loadLobby(lobbyId);
    return isLive(state) ? lobbyView(state) : null;
  }

  async leave(r: PlayerLobbyRequest): Promise<LeftLobby> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const { lobbyId } = await this.myLobby(r, false);
    await this.run(r.projectId, lobbyId, { type: 'LeaveLobby', playerId: r.playerId, hostLeaveBehavior: config.hostLeaveBehavior, now: this.now() });
    return { status: 'left', lobbyId };
  }

  async updateMyState(r: UpdatePlayerStateRequest): Promise<LobbyView> {
    const { lobbyId } = await this.myLobby(r, false);
    const ran = await this.run(r.projectId, lobbyId, (s) => {
      const me = isLive(s) ? s.players.find((p) => p.id === r.playerId) : undefined;
      if (me && jsonBytes({ ...me.state, ...r.state }) > MAX_PLAYER_STATE_BYTES) throw tooLarge('state', MAX_PLAYER_STATE_BYTES);
      return { type: 'UpdatePlayerState', playerId: r.playerId, state: r.state, now: this.now() };
    });
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return lobbyView(ran.state);
  }

  async updateSettings(r: UpdateLobbySettingsRequest): Promise<LobbyView> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const c = r.changes;
    if (c.settings !== undefined && jsonBytes(c.settings) > MAX_SETTINGS_BYTES) throw tooLarge('settings', MAX_SETTINGS_BYTES);
    const { lobbyId, state } = await this.myLobby(r);
    // Going private needs a code of its own, claimed before the change (released again if refused).
    const code = c.isPrivate === true && !state.isPrivate ? await this.claimFreeCode(r.projectId, config, lobbyId) : undefined;
    try {
      const ran = await this.run(r.projectId, lobbyId, { type: 'UpdateSettings', playerId: r.playerId, ...c, code, now: this.now() });
      return lobbyView(ran.state);
    } catch (err) {
      if (code) await this.release(lobbyCodeStream(r.projectId, code), lobbyId);
      throw err;
    }
  }

  async kick(r: TargetPlayerRequest): Promise<LobbyView> {
    const { lobbyId } = await this.myLobby(r, false);
    return lobbyView((await this.run(r.projectId, lobbyId, { type: 'KickPlayer', playerId: r.playerId, targetId: r.targetId, now: this.now() })).state);
  }

  async transferHost(r: TargetPlayerRequest): Promise<LobbyView> {
    const { lobbyId } = await this.myLobby(r, false);
    return lobbyView((await this.run(r.projectId, lobbyId, { type: 'TransferHost', playerId: r.playerId, targetId: r.targetId, now: this.now() })).state);
  }

  /** Direct start: the lobby is `starting` at once; the server is launched in the background. */
  async start(r: PlayerLobbyRequest): Promise<LobbyView> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const { lobbyId } = await this.myLobby(r, false);
    const ran = await this.run(r.projectId, lobbyId, { type: 'StartGame', playerId: r.playerId, now: this.now() });
    return lobbyView((await this.launch(r.projectId, lobbyId, config)) ?? ran.state);
  }

  async heartbeat(r: PlayerLobbyRequest): Promise<Record<string, never>> {
    const { lobbyId } = await this.myLobby(r);
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return {};
  }

  async endMatch(r: PlayerLobbyRequest): Promise<LobbyView> {
    const { lobbyId, state } = await this.myLobby(r);
    const server = state.server?.instance_id;
    const ran = await this.run(r.projectId, lobbyId, { type: 'EndMatch', playerId: r.playerId, now: this.now() });
    if (server) void this.stopServer(r.projectId, server);
    return lobbyView(ran.state);
  }

  /** Legacy API: the host marks the lobby finished; it is deleted. */
  async close(r: PlayerLobbyRequest): Promise<DeletedLobby> {
    const { lobbyId, state } = await this.myLobby(r);
    if (state.host !== r.playerId) throw new DomainError('forbidden', 'only the host can finish the lobby');
    await this.deleteLobby(r.projectId, lobbyId, 'host_left');
    return { status: 'lobby_deleted', id: lobbyId };
  }

  // ---- admin routes --------------------------------------------------------------------------------

  async adminGet(r: AdminLobbyRequest): Promise<LobbyView> {
    return lobbyView(await this.ownLobby(r));
  }

  async adminDelete(r: AdminLobbyRequest): Promise<DeletedLobby> {
    await this.ownLobby(r);
    await this.deleteLobby(r.projectId, r.lobbyId, 'admin');
    return { status: 'lobby_deleted', id: r.lobbyId };
  }

  // ---- event streams -------------------------------------------------------------------------------

  /**
   * What a (re)connecting stream needs: the events after `lastEventId` (`<lobbyId>:<revision>`) of a
   * lobby the player was in at that point, then the player's lobby now.
   */
  async openStream(r: OpenLobbyStreamRequest): Promise<OpenedLobbyStream> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const replay = r.lastEventId ? await this.replay(r.projectId, config.name, r.playerId, r.lastEventId) : [];
    let mine: { lobbyId: string; state: LiveLobbyState; revision: number } | null = null;
    try {
      mine = await this.myLobby({ ...r, config: config.name });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'not_found') || replay.length === 0) throw err;
    }
    if (!mine) return { replay, lobbyId: null, revision: -1, lobby: null };
    this.presence.touch(r.projectId, mine.lobbyId, r.playerId);
    return { replay, lobbyId: mine.lobbyId, revision: mine.revision, lobby: lobbyView(mine.state) };
  }

  private async replay(projectId: string, config: string, playerId: string, lastEventId: string): Promise<LobbyStreamEvent[]> {
    const m = /^([0-9a-f-]{36}):(\d+)$/.exec(lastEventId);
    if (!m) return [];
    const [, lobbyId, rev] = m;
    const after = Number(rev);
    const { events } = await this.store.readStream(lobbyStream(lobbyId));
    let state: LobbyState = lobbyDecider.initialState;
    const out: LobbyStreamEvent[] = [];
    for (const e of events) {
      state = lobbyDecider.evolve(state, { type: e.type, data: e.data } as LobbyEvent);
      if (e.revision === after) {
        // Only a member of this lobby of this project and config at that point may read on.
        if (!isLive(state) || state.projectId !== projectId || state.config !== config || !state.players.some((p) => p.id === playerId)) return [];
      }
      if (e.revision <= after) continue;
      const id = `${lobbyId}:${e.revision}`;
      if (state.status === 'deleted') {
        out.push({ id, event: 'lobby_deleted', data: { id: lobbyId, reason: state.deleteReason } });
        return out;
      }
      if (!isLive(state)) return out;
      out.push({ id, event: 'lobby_updated', data: lobbyView(state) });
      if (!state.players.some((p) => p.id === playerId)) return out;
    }
    return out;
  }

  // ---- sweeps and the game server ------------------------------------------------------------------

  /** Members silent past the config's heartbeatTimeout, removed (used by the sweeper). */
  async removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void> {
    await this.run(projectId, lobbyId, { type: 'RemoveStalePlayers', playerIds, hostLeaveBehavior: config.hostLeaveBehavior, now: this.now() });
  }

  async deleteLobby(projectId: string, lobbyId: string, reason: 'admin' | 'idle' | 'host_left'): Promise<void> {
    await this.run(projectId, lobbyId, { type: 'DeleteLobby', reason, now: this.now() });
  }

  async abandonStart(projectId: string, lobbyId: string): Promise<void> {
    console.error(`lobby ${lobbyId}: starting for over a minute without a server (its launch was lost): back to waiting`);
    // instanceId '' matches no server: if one was assigned meanwhile (the read model lags), nothing changes.
    await this.run(projectId, lobbyId, { type: 'ServerStopped', instanceId: '', now: this.now() });
  }

  /** The deletion update again, for a lobby the store says is deleted (its broadcast was lost); else nothing. */
  async repeatDeletion(lobbyId: string): Promise<boolean> {
    const { state, revision } = await this.loadLobby(lobbyId);
    if (state.status !== 'deleted') return false;
    const update: LobbyUpdate = {
      projectId: state.projectId, config: state.config, lobbyId, revision, kind: 'deleted', lobby: null, reason: state.deleteReason, removed: state.players.map((p) => p.id),
    };
    await this.bus.broadcast(SUBJECTS.lobbies.updates, update);
    return true;
  }

  async lobbyConfig(projectId: string, nameOrId: string): Promise<LobbyConfig> {
    const cached = this.settingsCache.get(projectId);
    const project = cached && Date.now() - cached.at < SETTINGS_TTL_MS ? await cached.value : await this.freshSettings(projectId);
    try {
      return resolveLobbyConfig(project.settings.lobby_configs, nameOrId);
    } catch (err) {
      if (!cached) throw err;
      // A config added a moment ago: read the settings again before saying it does not exist.
      return resolveLobbyConfig((await this.freshSettings(projectId)).settings.lobby_configs, nameOrId);
    }
  }

  private freshSettings(projectId: string): Promise<ProjectView> {
    const value = this.bus.request<ProjectView>(SUBJECTS.projects.get, { projectId });
    this.settingsCache.set(projectId, { at: Date.now(), value });
    value.catch(() => this.settingsCache.delete(projectId));
    return value;
  }

  /**
   * Starts the lobby's server and assigns it; the answer is the lobby then (still `starting`). A refusal
   * (the plan's active-server cap, no ready build, the servers service unreachable) puts the lobby back
   * to `waiting` and is the start's own answer, so the host learns why (403 for a full free plan).
   */
  private async launch(projectId: string, lobbyId: string, config: LobbyConfig): Promise<LobbyState | null> {
    let server: ServerView;
    try {
      const { state } = await this.loadLobby(lobbyId);
      if (!isLive(state) || state.status !== 'starting') return null;
      const project = await this.freshSettings(projectId);
      server = await this.bus.request<ServerView>(SUBJECTS.servers.start, lobbyServerStart(projectId, project.plan, lobbyId, state.region, config));
    } catch (err) {
      if (!(err instanceof DomainError || (err instanceof RemoteError && err.body.status < 500))) {
        console.error(`lobby ${lobbyId}: could not start its game server: ${(err as Error).message}`);
      }
      await this.run(projectId, lobbyId, { type: 'ServerStopped', now: this.now() }).catch(() => undefined);
      throw err;
    }
    let assigned: Ran;
    try {
      assigned = await this.run(projectId, lobbyId, { type: 'ServerAssigned', server: server as never, now: this.now() });
    } catch (err) {
      // The lobby moved on (deleted, host ended it) while the server launched: nobody needs it.
      void this.stopServer(projectId, server.instance_id);
      throw err;
    }
    void this.followServer(projectId, lobbyId, server.instance_id);
    return assigned.state;
  }

  /**
   * The server may have come up before the assignment was visible to the server-event consumer: ask for a
   * view that shows every server event committed so far (the consumer saw none it could place).
   */
  private async followServer(projectId: string, lobbyId: string, serverId: string): Promise<void> {
    try {
      const now = await this.bus.request<ServerView>(SUBJECTS.servers.get, { projectId, serverId, fresh: true });
      if (now.status !== 'launching') await this.onServerEvent(now.status === 'running' ? 'ServerRunning' : 'ServerStopped', serverId);
    } catch (err) {
      if (!(err instanceof DomainError)) console.error(`lobby ${lobbyId}: could not follow its game server: ${(err as Error).message}`);
      await this.run(projectId, lobbyId, { type: 'ServerStopped', instanceId: serverId, now: this.now() }).catch(() => undefined);
    }
  }

  private async onServerEvent(type: string, serverId: string): Promise<void> {
    const byServer = () => this.db.lobby.findFirst({ where: { serverId }, select: { id: true, projectId: true } });
    let row = await byServer();
    if (!row) {
      // The assignment may be committed but not yet in the lobbies read model (it batches under load).
      await this.projections.waitForHead('lobby-');
      row = await byServer();
    }
    if (!row) return;
    const server = type === 'ServerRunning' ? await this.runningServer(row.projectId, serverId) : null;
    const command: LobbyCommand = type === 'ServerRunning'
      ? { type: 'ServerRunning', server: (server ?? undefined) as never, now: this.now() }
      : { type: 'ServerStopped', instanceId: serverId, now: this.now() };
    await this.run(row.projectId, row.id, command).catch((err) => {
      if (!(err instanceof DomainError)) throw err;
    });
  }

  /** The server as its read model shows it once running (it may lag the event by a moment). */
  private async runningServer(projectId: string, serverId: string): Promise<ServerView | null> {
    let view: ServerView | null = null;
    for (let i = 0; i < 20; i++) {
      view = await this.bus.request<ServerView>(SUBJECTS.servers.get, { projectId, serverId }).catch(() => null);
      if (!view || view.status !== 'launching') return view;
      await new Promise((r) => setTimeout(r, 50));
    }
    return view && { ...view, status: 'running' };
  }

  /** Best effort (the server may be gone already): a lobby's server is stopped as if signalled. */
  private async stopServer(projectId: string, serverId: string): Promise<void> {
    await this.bus.request(SUBJECTS.servers.stop, { projectId, serverId, reason: 'SHUTDOWN_SIGNAL' }).catch((err) => {
      console.error(`lobbies: could not stop server ${serverId}: ${(err as Error).message}`);
    });
  }

  // ---- lookups and claims --------------------------------------------------------------------------

  private loadLobby(lobbyId: string): Promise<{ state: LobbyState; revision: number }> {
    return this.lobbies.load(lobbyStream(lobbyId));
  }

  /**
   * The caller's live lobby (the given one when `lobbyId` is set): 404 when not a member. `fresh: false`
   * (write paths) may answer from cached states: the write's append checks them, and a "not a member"
   * is confirmed on a read before it stands. Reads always read.
   */
  private async myLobby(r: PlayerLobbyRequest, fresh = true): Promise<{ lobbyId: string; state: LiveLobbyState; revision: number }> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const claim = (stream: string) => (fresh ? undefined : this.claims.peek(stream)) ?? this.claims.load(stream);
    const lobby = (id: string) => (fresh ? undefined : this.lobbies.peek(lobbyStream(id))) ?? this.loadLobby(id);
    const lobbyId = r.lobbyId ?? (await claim(lobbyMemberStream(r.projectId, config.name, r.playerId))).state.holder;
    const notIn = () => new DomainError('not_found', `player ${r.playerId} is not in a lobby of config ${config.name}`);
    const { state, revision } = lobbyId ? await lobby(lobbyId) : { state: lobbyDecider.initialState, revision: -1 };
    const member = isLive(state) && state.projectId === r.projectId && state.config === config.name && state.players.some((p) => p.id === r.playerId);
    if (!member || !lobbyId) {
      if (!fresh) return this.myLobby(r, true);
      throw r.lobbyId && !(isLive(state) && state.projectId === r.projectId && state.config === config.name) ? notFound('lobby') : notIn();
    }
    return { lobbyId, state: state as LiveLobbyState, revision };
  }

  private async ownLobby(r: AdminLobbyRequest): Promise<LiveLobbyState> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const { state } = await this.loadLobby(r.lobbyId);
    if (!isLive(state) || state.projectId !== r.projectId || state.config !== config.name) throw notFound('lobby');
    return state;
  }

  private async lobbyWithCode(projectId: string, code: string): Promise<string> {
    const holder = (await this.claims.load(lobbyCodeStream(projectId, code))).state.holder;
    if (!holder) throw notFound('lobby with this invite code');
    const { state } = await this.loadLobby(holder);
    if (!isLive(state) || state.code !== code) throw notFound('lobby with this invite code');
    return holder;
  }

  /** Claims the player for `lobbyId` (409 when in another live lobby of the config); true if newly claimed. */
  private async claimMembership(projectId: string, config: string, playerId: string, lobbyId: string): Promise<boolean> {
    return this.claim(lobbyMemberStream(projectId, config, playerId), lobbyId, async (holder, since) => {
      const { state } = await this.loadLobby(holder);
      if (state.status === 'deleted') return true;
      if (isLive(state) && state.players.some((p) => p.id === playerId)) return false;
      return Date.now() - Date.parse(since) > CLAIM_GRACE_MS;
    }, () => new DomainError('conflict', `player is already in a lobby of config ${config}`));
  }

  private async claimFreeCode(projectId: string, config: LobbyConfig, lobbyId: string): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const code = inviteCode(config.inviteCodeConfig);
      const taken = await this.claim(lobbyCodeStream(projectId, code), lobbyId, async (holder, since) => {
        const { state } = await this.loadLobby(holder);
        if (state.status === 'deleted') return true;
        if (isLive(state) && state.code === code) return false;
        return Date.now() - Date.parse(since) > CLAIM_GRACE_MS;
      }, () => null).then(() => false, (err) => {
        if (err === null) return true;
        throw err;
      });
      if (!taken) return code;
    }
    throw new DomainError('conflict', 'could not find a free invite code; make inviteCodeConfig.length longer');
  }

  /**
   * Claims `stream` for `holder`; true when newly claimed. The common case (free, or ours) is one
   * read and one append; a held claim is taken over only if `holderGone` says so, at the revision read.
   */
  private async claim(stream: string, holder: string, holderGone: (holder: string, since: string) => Promise<boolean>, taken: () => unknown): Promise<boolean> {
    const attempt = async (takeOver: ClaimState | null) => (await this.claims.execute(stream, (s): ClaimCommand => ({
      type: 'Claim', key: stream, holder, holderGone: takeOver !== null && s.holder === takeOver.holder && s.since === takeOver.since, now: this.now(),
    }), {}, { optimistic: true })).events.length > 0;
    try {
      return await attempt(null);
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'conflict')) throw err;
    }
    const { state } = await this.claims.load(stream);
    if (state.holder !== null && state.holder !== holder && !(await holderGone(state.holder, state.since!))) throw taken();
    try {
      return await attempt(state);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'conflict') throw taken();
      throw err;
    }
  }

  /** Best effort: a release lost to a crash is healed by the next claim's holder check. */
  private async release(stream: string, holder: string): Promise<void> {
    await this.claims.execute(stream, { type: 'Release', key: stream, holder, now: this.now() }, {}, { optimistic: true }).catch((err) => {
      console.error(`lobbies: could not release ${stream}: ${(err as Error).message}`);
    });
  }

  // ---- the write path ------------------------------------------------------------------------------

  /** Decide and append on the lobby's stream; then release claims of departed players and broadcast. */
  private async run(projectId: string, lobbyId: string, command: LobbyCommand | ((s: LobbyState) => LobbyCommand)): Promise<Ran> {
    let before: LobbyState = lobbyDecider.initialState;
    const result = await this.lobbies.execute(lobbyStream(lobbyId), (s: LobbyState) => {
      before = s;
      return typeof command === 'function' ? command(s) : command;
    }, { projectId }, { optimistic: true });
    if (result.events.length === 0) return result;
    const removed: string[] = [];
    let deleted: { reason: string } | null = null;
    for (const e of result.events) {
      if (e.type === 'PlayerLeft' || e.type === 'PlayerKicked') removed.push(e.data.playerId);
      if (e.type === 'LobbyDeleted') deleted = { reason: e.data.reason };
    }
    const prior = isLive(before) ? before : null;
    if (deleted && prior) removed.push(...prior.players.map((p) => p.id).filter((id) => !removed.includes(id)));
    const config = prior?.config ?? (isLive(result.state) ? result.state.config : '');
    await Promise.all(removed.map((p) => this.release(lobbyMemberStream(projectId, config, p), lobbyId)));
    const codeBefore = prior?.code ?? null;
    const codeAfter = isLive(result.state) ? result.state.code : null;
    if (codeBefore && codeBefore !== codeAfter) await this.release(lobbyCodeStream(projectId, codeBefore), lobbyId);
    if (deleted && prior?.server) void this.stopServer(projectId, prior.server.instance_id);
    const update: LobbyUpdate = {
      projectId, config, lobbyId, revision: result.revision, kind: deleted ? 'deleted' : 'updated',
      lobby: isLive(result.state) ? lobbyView(result.state) : null, reason: deleted?.reason, removed,
    };
    // The change is stored: a failed broadcast must not turn it into an error for the caller (see the top).
    await this.bus.broadcast(SUBJECTS.lobbies.updates, update).catch((err) => console.error(`lobbies: update of ${lobbyId} at ${result.revision} not broadcast: ${(err as Error).message}`));
    return result;
  }
}
