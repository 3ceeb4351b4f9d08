// The legacy matchmaker's handlers (docs/api.md "Legacy matchmaker"): a ticket is a solo, private lobby of
// the matchmaker's lobby configuration searching in one of its modes; a match is a matchmade game server.
// Everything goes through the lobbies and servers services over the bus, as the v3 routes do.
import { randomUUID } from 'node:crypto';
import { LobbyConfig, LobbyView, REGIONS, resolveLobbyConfig } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { LegacyCreateTicketBody, LegacyMatchmakerQuery, LobbyPage, ServerList, SUBJECTS } from '@spawnpoint/proto';
import { LegacyLobbies } from './legacy-lobbies';
import {
  LegacyMatch, LegacyTicket, ratingField, ServerJson, serverMatch, TICKET_SETTING, TicketInfo, ticketInfo, ticketMode, toMatch, toTicket,
} from './legacy-ticket';

/** Lists page through the services and return at most this many entries. */
export const MAX_LEGACY_MATCHMAKER_LIST = 1000;
const PAGE = 100;
const DEFAULT_REGION = 'us-east';

export interface Matchmaker {
  /** The lobby configuration's name (`matchmaker_name`) and id (`matchmaker_id`; `default` for the default configuration). */
  name: string;
  id: string;
  config: LobbyConfig;
}

export interface PlayerStatus {
  status: 'in_queue' | 'matched' | 'none';
  matchmaker_name: string;
  player_id: string;
  ticket?: LegacyTicket;
  match?: LegacyMatch;
}

export interface RemovedTicket {
  message: string;
  status: 'cancelled' | 'removed';
  ticket_id: string;
  match_id?: string;
  match_status?: 'active' | 'closed';
}

export interface DeletedMatch {
  message: string;
  match_id: string;
  matchmaker_id: string;
  player_count: number;
  tickets_cleaned: number;
  missing_ticket_count: number;
  server_id: string;
}

const notFound = (error: string) => new RemoteError({ error, status: 404 });
const badRequest = (error: string, loc: (string | number)[], msg: string) => new RemoteError({ error, status: 400, detail: [{ loc, msg, type: 'value_error' }] });
const isNotFound = (err: unknown) => err instanceof RemoteError && err.body.status === 404;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class LegacyMatchmaker {
  constructor(private readonly h: LegacyLobbies) {}

  /**
   * The matchmaker a request names: the lobby configuration of that name (else of that id), with
   * matchmaking modes. Unknown, disabled, or without modes: 404.
   */
  async matchmaker(projectId: string, q: LegacyMatchmakerQuery): Promise<Matchmaker> {
    if (q.matchmaker_name === undefined && q.matchmaker_id === undefined) {
      throw badRequest('matchmaker_name or matchmaker_id is required', ['query', 'matchmaker_name'], 'Field required');
    }
    const settings = await this.h.request(SUBJECTS.projects.getSettings, { projectId });
    const raws = Array.isArray(settings?.lobby_configs) ? settings.lobby_configs : [];
    const raw = q.matchmaker_name !== undefined ? raws.find((c) => c.name === q.matchmaker_name) : raws.find((c) => c.id === q.matchmaker_id);
    const nameOrId = q.matchmaker_name ?? (typeof raw?.name === 'string' ? raw.name : q.matchmaker_id!);
    let config: LobbyConfig;
    try {
      config = resolveLobbyConfig(raws, nameOrId);
    } catch {
      throw notFound(`Matchmaker ${nameOrId} not found`);
    }
    if (Object.keys(config.modes).length === 0) throw notFound(`Matchmaker ${nameOrId} not found (its lobby configuration has no matchmaking modes)`);
    return { name: config.name, id: typeof raw?.id === 'string' ? raw.id : config.name, config };
  }

  private ctx(projectId: string, mm: Matchmaker) {
    return { projectId, config: mm.name };
  }

  /** The player of a new ticket: `player_id`, or an anonymous one. */
  static playerOf(b: LegacyCreateTicketBody): string {
    return b.player_id ?? `anonymous-${randomUUID()}`;
  }

  /**
   * A new ticket: the player's solo, private lobby (its state carrying `elo` under the mode's rating field)
   * starts matchmaking in the mode. A ticket of the player that is over (back to waiting) is removed first;
   * one still searching, or a lobby of the player in this configuration: 409.
   */
  async create(projectId: string, mm: Matchmaker, playerId: string, b: LegacyCreateTicketBody): Promise<LegacyTicket> {
    const mode = ticketMode(mm.config.modes, b.preferred_modes)!;
    const known = (b.regions ?? []).filter((r) => (REGIONS as readonly string[]).includes(r));
    if ((b.regions ?? []).length > 0 && known.length === 0) {
      throw badRequest('No supported region', ['body', 'regions'], `must name at least one of ${REGIONS.join(', ')}`);
    }
    const regions = known.length > 0 ? known : [DEFAULT_REGION];
    const ctx = this.ctx(projectId, mm);
    const previous = await this.h.request(SUBJECTS.lobbies.getMine, { ...ctx, playerId }).catch((err) => (isNotFound(err) ? null : Promise.reject(err)));
    if (previous && ticketInfo(previous) && previous.status === 'waiting') await this.leave(ctx, playerId, previous.id);
    else if (previous) throw new RemoteError({ error: `player ${playerId} already has ${ticketInfo(previous) ? 'an active ticket' : 'a lobby'} in matchmaker ${mm.name}`, status: 409 });

    const info: TicketInfo = {
      matchmaker_id: mm.id, mode, regions, ...(b.elo !== undefined ? { elo: b.elo } : {}), ...(b.gameBuild !== undefined ? { gameBuild: b.gameBuild } : {}),
    };
    const state = b.elo !== undefined ? { [ratingField(mm.config.modes[mode])]: b.elo } : {};
    const lobby = await this.h.request(SUBJECTS.lobbies.create, {
      ...ctx, playerId, body: { name: `ticket ${playerId}`, maxPlayers: 1, region: regions[0], isPrivate: true, settings: { [TICKET_SETTING]: info }, state },
    });
    try {
      return toTicket(await this.h.request(SUBJECTS.lobbies.startMatchmaking, { ...ctx, playerId, lobbyId: lobby.id, mode }), mm.id);
    } catch (err) {
      await this.leave(ctx, playerId, lobby.id).catch(() => undefined); // no ticket without its search
      throw err;
    }
  }

  /** The matchmaker's tickets in the queue (the project's, not only the caller's), oldest first. */
  async list(projectId: string, mm: Matchmaker): Promise<LegacyTicket[]> {
    const lobbies = await this.browse(projectId, mm, 'in_queue');
    return lobbies.filter((l) => ticketInfo(l) !== null).map((l) => toTicket(l, mm.id)).sort((a, b) => a.created_at - b.created_at);
  }

  /** A ticket by id (its lobby's id): 404 when there is no such ticket of this matchmaker. */
  async ticket(projectId: string, mm: Matchmaker, ticketId: string): Promise<LegacyTicket> {
    const lobby = await this.ticketLobby(projectId, mm, ticketId);
    const ticket = toTicket(lobby, mm.id);
    if (ticket.status !== 'matched' || !lobby.server) return ticket;
    return toTicket(lobby, mm.id, lobby.host, await this.matchOf(projectId, mm, lobby.server.instance_id));
  }

  /** The player's search in this matchmaker: its ticket while queued, its match when matched, else status none. */
  async player(projectId: string, mm: Matchmaker, playerId: string): Promise<PlayerStatus> {
    const none: PlayerStatus = { status: 'none', matchmaker_name: mm.name, player_id: playerId };
    const lobby = await this.h.request(SUBJECTS.lobbies.getMine, { ...this.ctx(projectId, mm), playerId }).catch((err) => (isNotFound(err) ? null : Promise.reject(err)));
    if (!lobby) return none;
    const ticket = toTicket(lobby, mm.id, playerId);
    if (ticket.status === 'In Queue') return { status: 'in_queue', matchmaker_name: mm.name, player_id: playerId, ticket };
    if (ticket.status === 'matched' && lobby.server) {
      return { status: 'matched', matchmaker_name: mm.name, player_id: playerId, ticket, match: await this.matchOf(projectId, mm, lobby.server.instance_id) };
    }
    return none;
  }

  /**
   * Cancels a ticket: a queued one stops searching and its lobby goes (status cancelled); a matched one
   * leaves its match (status removed; the match is closed when no lobby is left in it and its server stops).
   */
  async remove(projectId: string, mm: Matchmaker, lobby: LobbyView): Promise<RemovedTicket> {
    const ctx = this.ctx(projectId, mm);
    const serverId = lobby.server?.instance_id;
    if (toTicket(lobby, mm.id).status !== 'matched' || !serverId) {
      await this.leave(ctx, lobby.host, lobby.id);
      return { message: 'Ticket cancelled', status: 'cancelled', ticket_id: lobby.id };
    }
    const server = await this.h.request(SUBJECTS.servers.get, { projectId, serverId });
    await this.leave(ctx, lobby.host, lobby.id);
    const others = (serverMatch(server)?.lobbies ?? []).filter((id) => id !== lobby.id);
    const left = (await this.lobbies(projectId, mm, others)).filter((l) => l.server?.instance_id === serverId);
    return { message: 'Player removed from the match', status: 'removed', ticket_id: lobby.id, match_id: server.match_id, match_status: left.length > 0 ? 'active' : 'closed' };
  }

  /** The ticket's lobby, for a delete: 404 when there is no such ticket of this matchmaker. */
  async ticketLobby(projectId: string, mm: Matchmaker, ticketId: string): Promise<LobbyView> {
    const missing = notFound(`Ticket ${ticketId} not found`);
    if (!UUID.test(ticketId)) throw missing;
    const lobby = await this.h.request(SUBJECTS.lobbies.adminGet, { ...this.ctx(projectId, mm), lobbyId: ticketId }).catch((err) => Promise.reject(isNotFound(err) ? missing : err));
    if (!ticketInfo(lobby)) throw missing;
    return lobby;
  }

  /** The matchmaker's games that have not ended (their servers launching or running), newest first. */
  async matches(projectId: string, mm: Matchmaker): Promise<LegacyMatch[]> {
    const servers: ServerJson[] = [];
    // Launching and running servers, newest first, page by page.
    for (let offset = 0; servers.length < MAX_LEGACY_MATCHMAKER_LIST;) {
      const page: ServerList = await this.h.request(SUBJECTS.servers.list, { projectId, include_launching: true, limit: PAGE, offset });
      servers.push(...page.servers.filter((s) => serverMatch(s, mm.name)));
      if (!page.has_more || page.servers.length === 0) break;
      offset += page.servers.length;
    }
    servers.sort((a, b) => b.created_at.localeCompare(a.created_at));
    return Promise.all(servers.slice(0, MAX_LEGACY_MATCHMAKER_LIST).map((s) => this.matchView(projectId, mm, s)));
  }

  /**
   * Ends a match as an operator would: its server stops (every lobby of it leaves the game, back to
   * waiting) and its tickets' lobbies are removed. 404 when the matchmaker has no game of that match id.
   */
  async endMatch(projectId: string, mm: Matchmaker, matchId: string): Promise<DeletedMatch> {
    const page = await this.h.request(SUBJECTS.servers.list, { projectId, match_id: matchId, include_launching: true, limit: PAGE });
    const ofMatch = page.servers.filter((s) => serverMatch(s, mm.name));
    const server = ofMatch.find((s) => s.status !== 'stopped');
    if (!server) throw notFound(`Match ${matchId} not found`);
    const m = serverMatch(server)!;
    await this.h.request(SUBJECTS.servers.stop, { projectId, serverId: server.instance_id, reason: 'SHUTDOWN_SIGNAL' });
    const lobbies = await this.lobbies(projectId, mm, m.lobbies);
    const tickets = lobbies.filter((l) => ticketInfo(l));
    // A ticket that went meanwhile (its player left) is counted as missing, not as an error.
    const cleaned = await Promise.all(tickets.map((l) => this.h.request(SUBJECTS.lobbies.adminDelete, { ...this.ctx(projectId, mm), lobbyId: l.id }).then(() => true, (err) => (isNotFound(err) ? false : Promise.reject(err)))));
    const removed = cleaned.filter(Boolean).length;
    // Missing: lobbies of the match gone before this request, and tickets that went while it ran.
    const missing = m.lobbies.length - lobbies.length + (tickets.length - removed);
    return {
      message: 'Match deleted', match_id: matchId, matchmaker_id: mm.id, player_count: m.teams.flat().length,
      tickets_cleaned: removed, missing_ticket_count: missing, server_id: server.instance_id,
    };
  }

  // ---- reads shared by the routes ------------------------------------------------------------------

  private async matchOf(projectId: string, mm: Matchmaker, serverId: string): Promise<LegacyMatch> {
    return this.matchView(projectId, mm, await this.h.request(SUBJECTS.servers.get, { projectId, serverId }));
  }

  private async matchView(projectId: string, mm: Matchmaker, s: ServerJson): Promise<LegacyMatch> {
    const m = serverMatch(s);
    const lobbies = await this.lobbies(projectId, mm, m?.lobbies ?? []);
    return toMatch(s, { matchmakerId: mm.id, mode: (m && mm.config.modes[m.mode]) || null, lobbies });
  }

  /** The lobbies of these ids that still exist. */
  private async lobbies(projectId: string, mm: Matchmaker, ids: string[]): Promise<LobbyView[]> {
    const found = await Promise.all(ids.map((lobbyId) => this.h.request(SUBJECTS.lobbies.adminGet, { ...this.ctx(projectId, mm), lobbyId }).catch((err) => (isNotFound(err) ? null : Promise.reject(err)))));
    return found.filter((l): l is LobbyView => l !== null);
  }

  private async browse(projectId: string, mm: Matchmaker, status: string): Promise<LobbyView[]> {
    const found: LobbyView[] = [];
    for (let offset = 0; found.length < MAX_LEGACY_MATCHMAKER_LIST;) {
      const page: LobbyPage<LobbyView> = await this.h.request(SUBJECTS.lobbies.browse, { ...this.ctx(projectId, mm), status, limit: PAGE, offset, includePrivate: true });
      found.push(...page.lobbies);
      if (!page.hasMore || page.lobbies.length === 0) break;
      offset += page.lobbies.length;
    }
    return found.slice(0, MAX_LEGACY_MATCHMAKER_LIST);
  }

  /** The player leaves its ticket's lobby, which goes with it (a solo lobby): the search ends. */
  private async leave(ctx: { projectId: string; config: string }, playerId: string, lobbyId: string): Promise<void> {
    await this.h.request(SUBJECTS.lobbies.leave, { ...ctx, playerId, lobbyId });
  }
}
