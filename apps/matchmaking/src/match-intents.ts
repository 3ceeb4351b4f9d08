// The matchmaking service's dispatcher of the match-formation workflow's intents (ADR-0010): a command on
// a match, here, once per key; a command on a lobby, sent to the lobbies service with the key as its
// command id (it applies each key once); a reservation, whose refusal is the match's RefuseReservation;
// a server start (pool first, with the attempt's key as command id, so a retried dispatch is the same
// start), reported to the match as AssignServer or FailServerStart; a stop. A refusal (4xx) is an
// outcome; anything else throws and the runner sends the intent again.
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError, LobbyCommand, MatchCommand, matchFound, matchFoundKey, MatchFormed, MatchState, ReserveMatchLobby, StartMatchServer, StopMatchServer,
  StopStrayMatchServers, UpdateMatchRoster,
} from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { failpoint, IntentDispatcher, Platform, PLATFORM, routeIntents, unlessRefused } from '@spawnpoint/platform';
import { GameServers, LobbyConfigs } from '@spawnpoint/service-clients';
import { MatchLobbyCommandRequest, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { matchCustomData, matchServerStart } from './match-server';
import { MatchStates } from './match-states';

/** A refusal: the answer stands (a 5xx or no answer may pass, and is tried again). */
const refused = (err: unknown): err is RemoteError | DomainError => err instanceof DomainError || (err instanceof RemoteError && err.body.status < 500);

@Injectable()
export class MatchIntents {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform, private readonly configs: LobbyConfigs, private readonly servers: GameServers, readonly matches: MatchStates,
  ) {}

  /** A command on a match, once per key (a refusal is final: the match moved on): what it decided, null if refused. */
  onMatch(matchId: string, command: MatchCommand, key: string) {
    return unlessRefused(this.matches.handle(matchId, command, { key }));
  }

  readonly dispatch: IntentDispatcher = routeIntents('matchmaking', {
    aggregates: {
      match: (matchId, command, intent) => this.onMatch(matchId, command, intent.key),
      lobby: (lobbyId, command, intent) => this.onLobby(lobbyId, command, intent.key),
    },
    requests: {
      ReserveMatchLobby: (command, intent) => this.reserve(command, intent.key),
      StartMatchServer: (command, intent) => this.startServer(command, intent.key),
      StopMatchServer: (command) => this.stopServer(command),
      StopStrayMatchServers: (command) => this.stopStrays(command),
      UpdateMatchRoster: (command) => this.updateRoster(command),
    },
  });

  /** A command on a lobby, once per key (the lobbies service applies each key once). */
  private async onLobby(lobbyId: string, command: LobbyCommand, key: string): Promise<void> {
    await this.toLobby(lobbyId, command, key).catch(async (err) => {
      if (!refused(err)) throw err;
      // A lobby that refuses its MatchFound (or, after confirmation, its MatchReady) no longer holds the
      // match (its ticket changed, it left, it is gone): the match hears it before the server start that
      // follows in this chain, so it aborts rather than start a game without that lobby. The lobby's own
      // event says the same later (DropLobby again: a match over ignores it).
      if (command.type === 'MatchFound' || command.type === 'MatchReady') {
        await this.onMatch(command.matchId, { type: 'DropLobby', lobbyId, reason: 'not_held', now: command.now }, `${key}:dropped`);
      }
    });
  }

  private toLobby(lobbyId: string, command: LobbyCommand, commandId: string): Promise<unknown> {
    const request: MatchLobbyCommandRequest = { lobbyId, command, commandId };
    return this.platform.bus.request(SUBJECTS.lobbies.matchCommand, request);
  }

  /**
   * The lobby holds at the ticket matched, or refuses (its ticket changed, it left the queue): the match hears
   * either from here, in this intent, so a crash in between sends the intent again (the lobby answers its
   * key's reservation again) and no workflow hop stands between a reservation and the match (ADR-0012 §5).
   * The reservation that forms the match tells every lobby MatchFound from here too (`tellsLobbies`; the
   * workflow then does not): the server start waits behind this intent in the match's chain, so a lobby
   * refusing it is the match's DropLobby before that start, as from the workflow's own intents.
   */
  private async reserve(c: ReserveMatchLobby, key: string): Promise<void> {
    try {
      await this.toLobby(c.lobbyId, { type: 'ReserveForMatch', matchId: c.matchId, ticket: c.ticket, now: c.now }, key);
    } catch (err) {
      if (!refused(err)) throw err;
      await this.onMatch(c.matchId, { type: 'RefuseReservation', lobbyId: c.lobbyId, reason: err.message, now: c.now }, `${key}:refused`);
      return;
    }
    failpoint('match.after-reservation');
    const done = await this.onMatch(c.matchId, { type: 'ReserveLobby', lobbyId: c.lobbyId, now: c.now, tellsLobbies: true }, `${key}:reserved`);
    if (!done) return;
    // This reservation formed it (lobbiesTold, as tellsLobbies asked): the lobbies hear it from here.
    const formed = done.events.find((e): e is MatchFormed => e.type === 'MatchFormed');
    if (formed) {
      failpoint('match.after-formed');
      await this.tellFound(done.state, formed.data.confirmationDeadline, formed.data.at);
      return;
    }
    // Sent again after a crash cut it short once the match formed: tell them again (each lobby applies its key
    // once). Only a match just formed: anything later waits behind this intent in the match's chain.
    const s = done.state;
    const justFormed = s.status === 'confirming' || (s.status === 'server_requested' && !s.requireConfirmation && s.attempts === 1);
    if (done.repeated && justFormed) await this.tellFound(s, s.status === 'confirming' ? s.deadline : null, c.now);
  }

  /** Every lobby of the match: MatchFound, with the workflow's own key (the same command, once). */
  private async tellFound(s: MatchState, deadline: string | null, now: string): Promise<void> {
    if (s.status === 'none') return;
    await Promise.all(s.lobbies.map((l) => this.onLobby(l.lobbyId, matchFound(s.matchId, deadline, now), matchFoundKey(s.matchId, l.lobbyId))));
  }

  private async startServer(c: StartMatchServer, key: string): Promise<void> {
    // Only the attempt in flight: a late dispatch of an earlier one, or a match over, starts nothing. The
    // cached state (this process wrote the request) answers when it shows this attempt in flight; a match
    // that moved on unseen has its server stopped below, as for a race.
    const cached = this.matches.peek(c.matchId);
    const inFlight = (s: MatchState): s is Extract<MatchState, { status: 'server_requested' }> => s.status === 'server_requested' && s.attempts === c.attempt;
    const { state } = cached && inFlight(cached.state) ? cached : await this.matches.load(c.matchId);
    if (!inFlight(state)) return;
    let server: ServerView;
    try {
      const project = await this.configs.project(state.projectId);
      const config = await this.configs.get(state.projectId, state.config);
      server = await this.servers.start(matchServerStart(state, project.plan, config), key);
      failpoint('match.after-server-start');
    } catch (err) {
      if (!refused(err)) throw err;
      await this.onMatch(c.matchId, { type: 'FailServerStart', attempt: c.attempt, error: err.message, now: this.now() }, `${key}:failed`);
      return;
    }
    await this.onMatch(c.matchId, { type: 'AssignServer', serverId: server.instance_id, server, now: this.now() }, `${key}:assigned`);
    const { state: after } = await this.matches.load(c.matchId);
    // The match fell through while its server started (a lobby dropped out): nobody needs this server.
    if (!('serverId' in after) || after.serverId !== server.instance_id) await this.servers.stop(state.projectId, server.instance_id);
  }

  /** The game's roster now, in custom_data.match of its server (best effort: a server gone has no game). */
  private async updateRoster(c: UpdateMatchRoster): Promise<void> {
    const { state } = await this.matches.load(c.matchId);
    if (state.status !== 'assigned' && state.status !== 'running') return;
    const config = await this.configs.get(state.projectId, state.config).catch(() => null);
    await this.platform.bus.request(SUBJECTS.servers.update, { projectId: state.projectId, serverId: state.serverId, customData: matchCustomData(state, config?.name ?? state.config) })
      .catch((err) => {
        if (!refused(err)) throw err;
      });
  }

  private async stopServer(c: StopMatchServer): Promise<void> {
    const { state } = await this.matches.load(c.matchId);
    if (state.status === 'none') return;
    await this.servers.stop(state.projectId, c.serverId);
  }

  /** Every server of the match but its own (none once it is over) is stopped. */
  private async stopStrays(c: StopStrayMatchServers): Promise<void> {
    const { state } = await this.matches.load(c.matchId);
    if (state.status === 'none') return;
    const own = state.status === 'assigned' || state.status === 'running' ? state.serverId : null;
    for (const s of await this.servers.ofMatch(state.projectId, c.matchId)) {
      if (s.instance_id !== own && s.status !== 'stopped') await this.servers.stop(state.projectId, s.instance_id);
    }
  }

  now(): string {
    return this.platform.clock().toISOString();
  }
}
