// The API's resources, one method per operation (the operationId in the comment), typed from the contracts.
import { LobbyEventStream, type LobbyEventsOptions, type ProjectLobbyEventMap } from './lobby-events';
import type { Query, Transport } from './transport';
import type {
  ArtifactUrl, BackfillOverrideBody, BackfillState, BrowseLobbiesQuery, Build, BuildDeleted, BuildList, BuildLogs, CreatedProject, CreateLobbyBody,
  CreateProjectBody, DeletedLobby, DockerImageBody, Health, JoinLobbyBody, LeftLobby, ListBuildsQuery, ListServersQuery, Lobby, LobbyPage,
  LobbySettingsBody, LogHistogram, LogHistogramQuery, LogPage, LogsQuery, MatchmakingExplanation, ParkedEventList, PatchProjectBody, PoolCapacity,
  ProjectAdmin, ProjectLogPage, ProjectLogsQuery, ReplayedEvent, RestartServerBody, RotatedKeys, Server, ServerList, ServerMetrics, Settings, SettingsPatch, StartServerBody,
  StopServerQuery, UpdateServerBody, UploadUrl, V2Instance, V2Project, V2Server, V2ServerList, V2ServerStopped, V2StartServerBody,
} from './types';

const enc = encodeURIComponent;
const q = (o: object | undefined) => o as Query | undefined;

/** Polls `get` until `done` says so (or the time is up). */
export async function pollUntil<T>(get: () => Promise<T>, done: (v: T) => boolean, what: string, timeoutMs: number, intervalMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() + intervalMs > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface WaitOptions { timeoutMs?: number; intervalMs?: number }

export class Servers {
  constructor(private readonly t: Transport) {}
  /** Servers_start */
  start(body: StartServerBody): Promise<Server> { return this.t.request('POST', '/v3/servers/start', { json: body }); }
  /** Servers_list: one page (running servers unless include_launching or status says otherwise). */
  list(query?: ListServersQuery): Promise<ServerList> { return this.t.request('GET', '/v3/servers', { query: q(query) }); }
  /** Every server matching `query`, page after page (offset by offset, until has_more is false). */
  async *listAll(query: Omit<ListServersQuery, 'offset'> = {}): AsyncGenerator<Server> {
    for (let offset = 0; ;) {
      const page = await this.list({ ...query, offset });
      yield* page.servers;
      if (!page.has_more || page.servers.length === 0) return;
      offset += page.servers.length;
    }
  }
  /** Servers_get */
  get(id: string): Promise<Server> { return this.t.request('GET', `/v3/servers/${enc(id)}`); }
  /** Servers_update: replaces custom_data. */
  update(id: string, body: UpdateServerBody): Promise<Server> { return this.t.request('POST', `/v3/servers/${enc(id)}/update`, { json: body }); }
  /** Servers_stop */
  stop(id: string, query?: StopServerQuery): Promise<Server> { return this.t.request('DELETE', `/v3/servers/${enc(id)}`, { query: q(query) }); }
  /** Servers_restart */
  restart(id: string, body: RestartServerBody = {}): Promise<Server> { return this.t.request('POST', `/v3/servers/${enc(id)}/restart`, { json: body }); }
  /** ServerLogs_logs: one page, oldest first. */
  logs(id: string, query?: LogsQuery): Promise<LogPage> { return this.t.request('GET', `/v3/servers/${enc(id)}/logs`, { query: q(query) }); }
  /** ServerLogs_histogram */
  logHistogram(id: string, query?: LogHistogramQuery): Promise<LogHistogram> { return this.t.request('GET', `/v3/servers/${enc(id)}/log-histogram`, { query: q(query) }); }
  /** ServerLogs_metrics */
  metrics(id: string): Promise<ServerMetrics> { return this.t.request('GET', `/v3/servers/${enc(id)}/metrics`); }
  /** Pools_capacity: each warm-pool region's desired count and why, with its ready, launching, outdated and claimed servers. */
  poolCapacity(): Promise<PoolCapacity> { return this.t.request('GET', '/v3/pools'); }
  /** Servers_backfill (server key) */
  backfill(id: string): Promise<BackfillState> { return this.t.request('GET', `/v3/servers/${enc(id)}/backfill`); }
  /** Servers_overrideBackfill (server key) */
  overrideBackfill(id: string, body: BackfillOverrideBody): Promise<BackfillState> { return this.t.request('PATCH', `/v3/servers/${enc(id)}/backfill`, { json: body }); }
  /** V2Servers_start: the v2 API's start. */
  startV2(body: V2StartServerBody): Promise<V2Server> { return this.t.request('POST', '/v2/servers/start', { json: body }); }
  /** V2Servers_list: the v2 API's list (running servers; with includeLaunching launching ones too), all of them. */
  listV2(includeLaunching = false): Promise<V2ServerList> { return this.t.request('GET', '/v2/servers', { query: { include_launching: includeLaunching } }); }
  /** V2Servers_get */
  getV2(id: string): Promise<V2Instance> { return this.t.request('GET', `/v2/servers/${enc(id)}`); }
  /** V2Servers_stop: `{status: "stopped"}`, also for a server already stopped. */
  stopV2(id: string): Promise<V2ServerStopped> { return this.t.request('DELETE', `/v2/servers/${enc(id)}`); }
  /** V2Servers_update: a server reports its state (X-Server-Status): running runs a launching server, stopped stops it. */
  reportStateV2(id: string, state: V2Instance['status']): Promise<V2Instance> {
    return this.t.request('PUT', `/v2/servers/${enc(id)}/update`, { headers: { 'X-Server-Status': state } });
  }
  /** Polls until the server is `status` (default running); a stopped server while waiting for running fails. */
  async waitFor(id: string, status: Server['status'] = 'running', { timeoutMs = 60_000, intervalMs = 250 }: WaitOptions = {}): Promise<Server> {
    return pollUntil(() => this.get(id), (s) => {
      if (s.status === status) return true;
      if (s.status === 'stopped') throw new Error(`server ${id} stopped while waiting for ${status}`);
      return false;
    }, `server ${id} ${status}`, timeoutMs, intervalMs);
  }
  /**
   * Follows the server's log: yields each new line (polling `logs` from the last timestamp seen, every
   * `intervalMs`) until the server is stopped and drained, or the signal aborts.
   */
  async *followLogs(id: string, { intervalMs = 1000, signal, start_time }: { intervalMs?: number; signal?: AbortSignal; start_time?: string } = {}): AsyncGenerator<LogPage['logs'][number]> {
    const seen = new Set<string>();
    // From the server's creation unless asked otherwise: its whole log, then what follows.
    let since = start_time ?? (await this.get(id)).created_at;
    while (!signal?.aborted) {
      // Whether the server had stopped before this round's read: then a round with nothing new is the end.
      const stopped = (await this.get(id)).status === 'stopped';
      let page: LogPage;
      let token: string | null = null;
      let fresh = 0;
      do {
        page = await this.logs(id, { start_time: since, limit: 1000, ...(token ? { next_token: token } : {}) } as LogsQuery);
        for (const line of page.logs) {
          const key = `${line.timestamp}\u0000${line.message}`;
          if (seen.has(key)) continue;
          seen.add(key);
          fresh++;
          yield line;
        }
        token = page.next_token;
      } while (token && !signal?.aborted);
      const last = page.logs[page.logs.length - 1];
      if (last && last.timestamp !== since) {
        // Lines of the same timestamp are asked again (and skipped): none is lost at the edge.
        since = last.timestamp;
        for (const k of seen) if (!k.startsWith(since)) seen.delete(k);
      }
      if (stopped && fresh === 0) return;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

export class Builds {
  constructor(private readonly t: Transport) {}
  /** Builds_uploadUrl (server key): a single-use upload URL, valid 60 minutes. */
  requestUpload(query: { name: string; executable_path?: string }): Promise<UploadUrl> { return this.t.request('POST', '/v3/builds/upload-url', { query }); }
  /** Builds_upload: PUTs a ZIP to an upload URL; `onProgress(sent, total)` as bytes leave (Node: a counted stream). */
  async upload(uploadUrl: string, zip: Uint8Array | Blob | ArrayBuffer, { onProgress, signal }: { onProgress?: (sent: number, total: number) => void; signal?: AbortSignal } = {}): Promise<Build> {
    const bytes = zip instanceof Blob ? zip : new Blob([zip as ArrayBuffer]);
    const total = bytes.size;
    let body: BodyInit = bytes;
    let replayable = true;
    if (onProgress && streamingUploads()) {
      let sent = 0;
      const reader = bytes.stream().getReader();
      body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) { controller.close(); return; }
          sent += value.byteLength;
          controller.enqueue(value);
          onProgress(sent, total);
        },
      });
      replayable = false;
    }
    onProgress?.(0, total);
    const build = await this.t.request<Build>('PUT', uploadUrl, { raw: { body, contentType: 'application/zip', replayable }, auth: 'none', signal, headers: replayable ? undefined : { 'content-length': String(total) } });
    onProgress?.(total, total);
    return build;
  }
  /** Requests an upload URL, uploads the ZIP and (by default) waits until the build is ready. */
  async push(zip: Uint8Array | Blob | ArrayBuffer, options: { name: string; executable_path?: string; wait?: boolean; onProgress?: (sent: number, total: number) => void } & WaitOptions): Promise<Build> {
    const ticket = await this.requestUpload({ name: options.name, ...(options.executable_path ? { executable_path: options.executable_path } : {}) });
    const build = await this.upload(ticket.upload_url, zip, { onProgress: options.onProgress });
    return options.wait === false ? build : this.waitUntilReady(build.build_id, options);
  }
  /** Builds_image (server key): a build that runs a container image (Kubernetes runtime). */
  fromImage(body: DockerImageBody): Promise<Build> { return this.t.request('POST', '/v3/builds/docker-image', { json: body }); }
  /** Builds_list: one page, newest first (`limit` 1-100, default 50; `offset`), with `total` and `has_more`. */
  list(query?: ListBuildsQuery): Promise<BuildList> { return this.t.request('GET', '/v3/builds', { query: q(query) }); }
  /** Every build (of `name`, when given), newest first, page after page. */
  async *listAll(query: Omit<ListBuildsQuery, 'offset'> = {}): AsyncGenerator<Build> {
    for (let offset = 0; ;) {
      const page = await this.list({ ...query, limit: query.limit ?? 100, offset });
      yield* page.builds;
      offset += page.builds.length;
      if (!page.has_more || page.builds.length === 0) return;
    }
  }
  /** Builds_logs: what processing did (checks, unpacking, the executable found, the reason of a failure), oldest first. */
  logs(id: string): Promise<BuildLogs> { return this.t.request('GET', `/v3/builds/${enc(id)}/logs`); }
  /** Builds_get */
  get(id: string): Promise<Build> { return this.t.request('GET', `/v3/builds/${enc(id)}`); }
  /** Builds_delete (server key) */
  delete(id: string): Promise<BuildDeleted> { return this.t.request('DELETE', `/v3/builds/${enc(id)}`); }
  /** Builds_artifactUrl: a signed URL to download the unpacked build (for custom runtimes). */
  artifactUrl(id: string): Promise<ArtifactUrl> { return this.t.request('POST', `/v3/builds/${enc(id)}/artifact-url`); }
  /** Polls until the build is ready; a failed build throws with its error. */
  waitUntilReady(id: string, { timeoutMs = 120_000, intervalMs = 250 }: WaitOptions = {}): Promise<Build> {
    return pollUntil(() => this.get(id), (b) => {
      if (b.status === 'failed') throw new Error(`build ${id} failed: ${(b as { error?: string }).error ?? 'unknown error'}`);
      return b.status === 'ready';
    }, `build ${id} ready`, timeoutMs, intervalMs);
  }
}

/** Whether fetch can send a ReadableStream body here (Node 18+; Chromium over HTTP/2 only, so not assumed in browsers). */
function streamingUploads(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

export class Projects {
  constructor(private readonly t: Transport) {}
  /** Projects_get */
  getSettings(): Promise<Settings> { return this.t.request('GET', '/v3/projects/settings'); }
  /** Projects_update (server key): a partial update; validation errors name the field. */
  updateSettings(patch: SettingsPatch): Promise<Settings> { return this.t.request('POST', '/v3/projects/settings', { json: patch }); }
  /** ServerLogs_projectLogs: one page of every server's log lines, oldest first (start_time required). */
  logs(query: ProjectLogsQuery): Promise<ProjectLogPage> { return this.t.request('GET', '/v3/projects/logs', { query: q(query) }); }
  /** V2Project_get: the key's project id (the v2 API). */
  idV2(): Promise<V2Project> { return this.t.request('GET', '/v2/project'); }
}

/** A player's view of the lobbies: every call carries x-player-id (and x-player-token when set). */
export class PlayerLobbies {
  private readonly headers: Record<string, string | undefined>;
  constructor(private readonly t: Transport, readonly playerId: string, playerToken?: string) {
    this.headers = { 'x-player-id': playerId, 'x-player-token': playerToken };
  }
  private call<T>(method: string, config: string, suffix: string, json?: unknown, query?: Query): Promise<T> {
    return this.t.request(method, `/v3/lobbies/${enc(config)}${suffix}`, { headers: this.headers, json, query });
  }
  /** Lobbies_create */
  create(config: string, body: CreateLobbyBody = {}): Promise<Lobby> { return this.call('POST', config, '', body); }
  /** Lobbies_join: by lobbyId or invite code. */
  join(config: string, body: JoinLobbyBody): Promise<Lobby> { return this.call('POST', config, '/join', body); }
  /** Lobbies_getMine */
  mine(config: string): Promise<Lobby> { return this.call('GET', config, '/me'); }
  /** Lobbies_updateMyState: replaces this player's state. */
  updateState(config: string, state: Record<string, unknown>): Promise<Lobby> { return this.call('PATCH', config, '/me', { state }); }
  /** Lobbies_leave */
  leave(config: string): Promise<LeftLobby> { return this.call('DELETE', config, '/me'); }
  /** Lobbies_updateSettings (host) */
  updateSettings(config: string, body: LobbySettingsBody): Promise<Lobby> { return this.call('PATCH', config, '/me/settings', body); }
  /** Lobbies_kickPlayer (host): the lobby without the player, whose event stream ends. */
  kick(config: string, playerId: string): Promise<Lobby> { return this.call('DELETE', config, `/me/players/${enc(playerId)}`); }
  /** Lobbies_transferHost (host) */
  transferHost(config: string, playerId: string): Promise<Lobby> { return this.call('POST', config, '/me/transfer-host', { playerId }); }
  /** Lobbies_start (host): launches the lobby's game server. */
  start(config: string): Promise<Lobby> { return this.call('POST', config, '/me/start'); }
  /** Lobbies_heartbeat */
  async heartbeat(config: string): Promise<void> { await this.t.request('POST', `/v3/lobbies/${enc(config)}/me/heartbeat`, { headers: this.headers, rawResponse: true }); }
  /** Lobbies_endMatch (host) */
  endMatch(config: string): Promise<Lobby> { return this.call('POST', config, '/me/end-match'); }
  /** LobbyMatchmaking_startMatchmaking (host) */
  startMatchmaking(config: string, mode: string): Promise<Lobby> { return this.call('POST', config, '/me/matchmaking', { mode }); }
  /** LobbyMatchmaking_explainMatchmaking: why the lobby has not matched yet. */
  explainMatchmaking(config: string): Promise<MatchmakingExplanation> { return this.call('GET', config, '/me/matchmaking'); }
  /** LobbyMatchmaking_cancelMatchmaking (host) */
  cancelMatchmaking(config: string): Promise<Lobby> { return this.call('DELETE', config, '/me/matchmaking'); }
  /** LobbyMatchmaking_confirmMatch */
  confirmMatch(config: string): Promise<Lobby> { return this.call('POST', config, '/me/confirm-match'); }
  /** LobbyMatchmaking_declineMatch: the match dissolves; the lobby is waiting with matchmakingError declined. */
  declineMatch(config: string): Promise<Lobby> { return this.call('DELETE', config, '/me/confirm-match'); }
  /** Lobbies_events: the lobby's live events, reconnecting and resuming by Last-Event-ID. */
  events(config: string, options?: LobbyEventsOptions): LobbyEventStream {
    return new LobbyEventStream(this.t, `/v3/lobbies/${enc(config)}/me/events`, this.headers, options);
  }
}

export class Lobbies {
  constructor(private readonly t: Transport) {}
  /** The lobby calls of one player. */
  asPlayer(playerId: string, playerToken?: string): PlayerLobbies { return new PlayerLobbies(this.t, playerId, playerToken); }
  /** Lobbies_browse: one page of public lobbies, newest first (no player needed). */
  browse(config: string, query?: BrowseLobbiesQuery): Promise<LobbyPage> { return this.t.request('GET', `/v3/lobbies/${enc(config)}`, { query: q(query) }); }
  /** Every public lobby matching `query`, page after page (by offset; `limit` sets the page size). */
  async *browseAll(config: string, query: Omit<BrowseLobbiesQuery, 'offset'> = {}): AsyncGenerator<Lobby> {
    let offset = 0;
    for (;;) {
      const page = await this.browse(config, { ...query, offset });
      yield* page.lobbies;
      if (!page.hasMore || page.lobbies.length === 0) return;
      offset += page.lobbies.length;
    }
  }
  /** Lobbies_adminGet (server key) */
  get(config: string, id: string): Promise<Lobby> { return this.t.request('GET', `/v3/lobbies/${enc(config)}/${enc(id)}`); }
  /** Lobbies_adminDelete (server key) */
  delete(config: string, id: string): Promise<DeletedLobby> { return this.t.request('DELETE', `/v3/lobbies/${enc(config)}/${enc(id)}`); }
  /** ProjectLobbyEvents_events (server key): every lobby change of the configuration and the project's queue figures;
   * reconnects after a drop (nothing is replayed: read the lobbies again on `connected`). */
  events(config: string, options?: Omit<LobbyEventsOptions, 'lastEventId'>): LobbyEventStream<ProjectLobbyEventMap> {
    return new LobbyEventStream<ProjectLobbyEventMap>(this.t, `/v3/lobbies/${enc(config)}/events`, {}, options, false);
  }
}

/** The operator's routes (admin token). */
export class Admin {
  constructor(private readonly t: Transport) {}
  /** Admin_create: a project and its two keys (shown once). */
  createProject(body: CreateProjectBody): Promise<CreatedProject> { return this.t.request('POST', '/admin/projects', { json: body, auth: 'admin' }); }
  /** Admin_rotate: new keys; the old ones stop working. */
  rotateKeys(projectId: string): Promise<RotatedKeys> { return this.t.request('POST', `/admin/projects/${enc(projectId)}/keys/rotate`, { auth: 'admin' }); }
  /** Admin_patch: plan and rate limits. */
  patchProject(projectId: string, body: PatchProjectBody): Promise<ProjectAdmin> { return this.t.request('PATCH', `/admin/projects/${enc(projectId)}`, { json: body, auth: 'admin' }); }
  /** ParkedEvents_list */
  parkedEvents(projection?: string): Promise<ParkedEventList> { return this.t.request('GET', '/admin/parked-events', { query: { projection }, auth: 'admin' }); }
  /** ParkedEvents_replay */
  replayParked(id: string): Promise<ReplayedEvent> { return this.t.request('POST', `/admin/parked-events/${enc(id)}/replay`, { auth: 'admin' }); }
}

export class HealthApi {
  constructor(private readonly t: Transport) {}
  /** Health_health: the platform's checks; a degraded platform (503) answers too, it is not thrown. */
  async check(): Promise<Health & { httpStatus: number }> {
    const res = await this.t.fetchRaw('/health');
    return { ...((await res.json()) as Health), httpStatus: res.status };
  }
  /** Health_ready: whether the gateway can serve. */
  async ready(): Promise<boolean> {
    const res = await this.t.fetchRaw('/health/ready').catch(() => null);
    await res?.body?.cancel().catch(() => undefined);
    return res?.status === 200;
  }
}
