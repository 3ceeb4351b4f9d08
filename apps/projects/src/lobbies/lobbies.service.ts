// The lobbies service (first cut): the Lobby aggregate over the bus. Temporarily lives in the projects
// package. No read model yet: lobbies are answered by loading their stream, and "which lobby" questions
// from an in-memory index rebuilt from the `lobby` category at start.
import { Inject, Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { conflict, DomainError, HostLeaveBehavior, invalid, lobbyDecider, LobbyEvent, LobbyState, lobbyStream, lobbyView, LobbyView, notFound } from '@spawnpoint/domain';
import { execute, Handlers, KeyedLane, load, Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import {
  AdminLobbyRequest, CreateLobbyRequest, DeletedLobby, JoinLobbyRequest, LeftLobby, PlayerLobbyRequest, ProjectView, SUBJECTS,
  UpdatePlayerStateRequest,
} from '@spawnpoint/proto';
import { LobbyIndex } from './lobby-index';

export interface LobbyConfig {
  name: string;
  maxPlayers: number;
  hostLeaveBehavior: HostLeaveBehavior;
  inviteCodeConfig: { type: 'numeric' | 'alphanumeric'; length: number; prefix: string };
}

export const DEFAULT_LOBBY_CONFIG: LobbyConfig = {
  name: 'default', maxPlayers: 8, hostLeaveBehavior: 'promote', inviteCodeConfig: { type: 'alphanumeric', length: 6, prefix: '' },
};

/** Upper case, without the look-alikes 0/O/1/I. */
const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const NUMERIC = '0123456789';

export function inviteCode(c: LobbyConfig['inviteCodeConfig']): string {
  const alphabet = c.type === 'numeric' ? NUMERIC : ALPHANUMERIC;
  let code = c.prefix;
  for (let i = 0; i < c.length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

const PAGE = 500;

@Injectable()
export class LobbiesService extends ServiceHost {
  private readonly index = new LobbyIndex();
  /** Writes of one project run one at a time, so the index checks (one lobby per player per config,
   * unique codes) and the append are atomic — within this process only. */
  private readonly writes = new KeyedLane();

  constructor(@Inject(PLATFORM) platform: Platform) {
    super(platform, 'lobbies', ['lobby']);
  }

  protected readModels() {
    return [];
  }

  protected handlers(): Handlers {
    return {
      [SUBJECTS.lobbies.create]: (r: CreateLobbyRequest) => this.writes.run(r.projectId, () => this.create(r)),
      [SUBJECTS.lobbies.getMine]: (r: PlayerLobbyRequest) => this.getMine(r),
      [SUBJECTS.lobbies.join]: (r: JoinLobbyRequest) => this.writes.run(r.projectId, () => this.join(r)),
      [SUBJECTS.lobbies.leave]: (r: PlayerLobbyRequest) => this.writes.run(r.projectId, () => this.leave(r)),
      [SUBJECTS.lobbies.updateMyState]: (r: UpdatePlayerStateRequest) => this.writes.run(r.projectId, () => this.updateMyState(r)),
      [SUBJECTS.lobbies.adminGet]: (r: AdminLobbyRequest) => this.adminGet(r),
      [SUBJECTS.lobbies.adminDelete]: (r: AdminLobbyRequest) => this.writes.run(r.projectId, () => this.adminDelete(r)),
    };
  }

  /** Rebuild the index from every lobby event, in pages. */
  protected override async starting(): Promise<void> {
    let from = 0n;
    for (;;) {
      const page = await this.store.readAll({ categories: ['lobby'], fromPosition: from, limit: PAGE });
      for (const e of page) this.index.apply({ type: e.type, data: e.data } as LobbyEvent, e.metadata?.projectId);
      if (page.length < PAGE) return;
      from = page[page.length - 1].position;
    }
  }

  async create(r: CreateLobbyRequest): Promise<LobbyView> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    if (this.index.lobbyOf(r.projectId, r.config, r.playerId)) throw conflict(`player is already in a lobby of config ${r.config}`);
    const b = r.body;
    const isPrivate = b.isPrivate ?? false;
    const code = isPrivate ? this.freeCode(r.projectId, config) : null;
    const lobbyId = randomUUID();
    const result = await this.run(r.projectId, lobbyId, {
      type: 'CreateLobby', lobbyId, config: r.config, hostId: r.playerId, name: b.name ?? null, maxPlayers: b.maxPlayers ?? config.maxPlayers,
      region: b.region ?? 'us-east', isPrivate, allowLateJoin: b.allowLateJoin ?? false, settings: b.settings ?? {}, hostState: b.state ?? {},
      code, now: this.now(),
    });
    return lobbyView(result);
  }

  async getMine(r: PlayerLobbyRequest): Promise<LobbyView> {
    return lobbyView(await this.loadLobby(this.myLobby(r)));
  }

  async join(r: JoinLobbyRequest): Promise<LobbyView> {
    if ((r.lobbyId === undefined) === (r.code === undefined)) throw invalid('give exactly one of lobbyId and code');
    await this.lobbyConfig(r.projectId, r.config);
    const lobbyId = r.lobbyId ?? this.index.lobbyWithCode(r.projectId, r.code!);
    const found = lobbyId ? this.index.lobby(lobbyId) : null;
    if (!lobbyId || !found || found.projectId !== r.projectId || found.config !== r.config) throw notFound('lobby');
    if (this.index.lobbyOf(r.projectId, r.config, r.playerId)) throw conflict(`player is already in a lobby of config ${r.config}`);
    return lobbyView(await this.run(r.projectId, lobbyId, { type: 'JoinLobby', playerId: r.playerId, state: r.state ?? {}, now: this.now() }));
  }

  async leave(r: PlayerLobbyRequest): Promise<LeftLobby> {
    const config = await this.lobbyConfig(r.projectId, r.config);
    const lobbyId = this.myLobby(r);
    await this.run(r.projectId, lobbyId, { type: 'LeaveLobby', playerId: r.playerId, hostLeaveBehavior: config.hostLeaveBehavior, now: this.now() });
    return { status: 'left', lobbyId };
  }

  async updateMyState(r: UpdatePlayerStateRequest): Promise<LobbyView> {
    const lobbyId = this.myLobby(r);
    return lobbyView(await this.run(r.projectId, lobbyId, { type: 'UpdatePlayerState', playerId: r.playerId, state: r.state, now: this.now() }));
  }

  async adminGet(r: AdminLobbyRequest): Promise<LobbyView> {
    return lobbyView(await this.loadLobby(this.ownLobby(r)));
  }

  async adminDelete(r: AdminLobbyRequest): Promise<DeletedLobby> {
    const lobbyId = this.ownLobby(r);
    await this.run(r.projectId, lobbyId, { type: 'DeleteLobby', reason: 'admin', now: this.now() });
    return { status: 'lobby_deleted', id: lobbyId };
  }

  /** `default` always exists; any other name must be in the project's lobby_configs. */
  private async lobbyConfig(projectId: string, name: string): Promise<LobbyConfig> {
    const project = await this.bus.request<ProjectView>(SUBJECTS.projects.get, { projectId });
    const configured = (project.settings.lobby_configs ?? []).find((c) => (c as { name?: unknown }).name === name) as Partial<LobbyConfig> & { enabled?: boolean } | undefined;
    if (!configured) {
      if (name === 'default') return DEFAULT_LOBBY_CONFIG;
      throw notFound(`lobby configuration ${name}`);
    }
    if (configured.enabled === false) throw notFound(`lobby configuration ${name}`);
    const base = name === 'default' ? DEFAULT_LOBBY_CONFIG : { ...DEFAULT_LOBBY_CONFIG, name };
    return {
      name,
      maxPlayers: typeof configured.maxPlayers === 'number' ? configured.maxPlayers : base.maxPlayers,
      hostLeaveBehavior: configured.hostLeaveBehavior === 'close' ? 'close' : 'promote',
      inviteCodeConfig: { ...base.inviteCodeConfig, ...(configured.inviteCodeConfig ?? {}) },
    };
  }

  private freeCode(projectId: string, config: LobbyConfig): string {
    for (let i = 0; i < 20; i++) {
      const code = inviteCode(config.inviteCodeConfig);
      if (!this.index.lobbyWithCode(projectId, code)) return code;
    }
    throw conflict('could not find a free invite code');
  }

  private myLobby(r: PlayerLobbyRequest): string {
    const lobbyId = this.index.lobbyOf(r.projectId, r.config, r.playerId);
    if (!lobbyId) throw new DomainError('not_found', `player ${r.playerId} is not in a lobby of config ${r.config}`);
    return lobbyId;
  }

  /** A lobby of this project and config; another project's lobby is not found. */
  private ownLobby(r: AdminLobbyRequest): string {
    const found = this.index.lobby(r.lobbyId);
    if (!found || found.projectId !== r.projectId || found.config !== r.config) throw notFound('lobby');
    return r.lobbyId;
  }

  private async loadLobby(lobbyId: string): Promise<LobbyState> {
    return (await load(this.store, lobbyDecider, lobbyStream(lobbyId))).state;
  }

  /** Decide and append on the lobby's stream, then keep the index in step. */
  private async run(projectId: string, lobbyId: string, command: Parameters<typeof lobbyDecider.decide>[0]): Promise<LobbyState> {
    const result = await execute(this.store, lobbyDecider, lobbyStream(lobbyId), command, { projectId });
    for (const e of result.events) this.index.apply(e, projectId);
    return result.state;
  }
}
