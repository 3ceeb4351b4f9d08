// A server's own processes, per server: its TTL (a timer at the deadline, moved when the deadline moves,
// cancelled when it stops), its startup timeout (a timer at each launch; running cancels it), the restart
// of a crashed game when auto_restart is on (bounded: the decider turns the crash after
// MAX_AUTO_RESTARTS into a stop), the refill of a pool when one of its servers is claimed or stops, and
// a claimed pool server's lease (its pool's claim_lease_seconds): no player reported within it, it stops,
// and whoever holds it (a lobby, a match) hears of the stop as of any other; a game that reported itself
// resettable is released instead (ServerPoolReleased: ready in the pool again, its holder told as of a stop).
// The state is the server decider's own (same evolve), plus counters that make the keys unique.
import { DomainEvent } from '../kit';
import { MAX_AUTO_RESTARTS, serverDecider, ServerCommand, ServerEvent, ServerState, ttlDeadline } from '../server';
import { timeAfter, CommandIntent, Intent, Workflow } from './workflow';

/**
 * Backstop for a server that never reports its ports bound. The runtimes time a start out themselves
 * (process: 120 s; kubernetes: its scheduling and startup timeouts); this catches what they cannot
 * (a machine adopted after a crash of the servers service, a lost exit report).
 */
export const SERVER_STARTUP_TIMEOUT_MS = 5 * 60_000;

/** Start the game of a crashed server again on its machine (auto_restart). */
export interface RestartCrashedServer { type: 'RestartCrashedServer'; projectId: string; serverId: string; attempt: number; now: string }
/**
 * One pool server left the ready pool (claimed or stopped): start a replacement in its pool region if
 * the pool is below its target. The target (min_ready, max) is project configuration, not in any server
 * event: the handler checks it (planPool) when it runs this.
 */
export interface RefillPool { type: 'RefillPool'; projectId: string; region: string; computeSize: string; replacing: string; now: string }

export type ServerTtlExpired = DomainEvent<'ServerTtlExpired', { serverId: string; at: string }>;
export type ServerStartupTimedOut = DomainEvent<'ServerStartupTimedOut', { serverId: string; launch: number; at: string }>;
export type ServerClaimLeaseExpired = DomainEvent<'ServerClaimLeaseExpired', { serverId: string; at: string }>;
export type ServerLifecycleEvent = ServerEvent | ServerTtlExpired | ServerStartupTimedOut | ServerClaimLeaseExpired;
export type ServerLifecycleIntent = Intent<ServerCommand | RestartCrashedServer | RefillPool, ServerTtlExpired | ServerStartupTimedOut | ServerClaimLeaseExpired>;

export interface ServerLifecycleState {
  server: ServerState;
  /** Launches so far (start, restart, crash restart): the startup timer's generation. */
  launches: number;
  /** ServerRestarted events so far: crash attempts count again from 1 after each. */
  restarts: number;
  /** A claimed pool server's lease: when it ends unless a player is reported first; absent: none (or met). */
  leaseUntil?: string;
}

const TTL_EVENTS = new Set<string>(['ServerRunning', 'ServerPoolClaimed', 'ServerPoolReleased', 'ServerRestarted', 'ServerStopped']);
const ttlTimer = (id: string) => `server-ttl:${id}`;
const startupTimer = (id: string) => `server-startup:${id}`;
const leaseTimer = (id: string) => `server-lease:${id}`;

function command(state: ServerLifecycleState, serverId: string, c: ServerCommand, key: string): CommandIntent<ServerCommand> {
  const projectId = state.server.status === 'none' ? null : state.server.projectId;
  return { kind: 'command', target: { aggregate: 'server', id: serverId, projectId }, command: c, key };
}

function ttl(state: ServerLifecycleState, serverId: string): ServerLifecycleIntent {
  const deadline = ttlDeadline(state.server)?.toISOString();
  if (!deadline) return { kind: 'cancel-timer', id: ttlTimer(serverId) };
  return { kind: 'timer', id: ttlTimer(serverId), at: deadline, then: { type: 'ServerTtlExpired', data: { serverId, at: deadline } } };
}

function startup(state: ServerLifecycleState, serverId: string, at: string): ServerLifecycleIntent {
  const due = timeAfter(at, SERVER_STARTUP_TIMEOUT_MS);
  return { kind: 'timer', id: startupTimer(serverId), at: due, then: { type: 'ServerStartupTimedOut', data: { serverId, launch: state.launches, at: due } } };
}

export const serverLifecycleWorkflow: Workflow<ServerLifecycleEvent, ServerLifecycleState, ServerLifecycleIntent> = {
  name: 'server-lifecycle',
  categories: ['server'],
  initialState: { server: serverDecider.initialState, launches: 0, restarts: 0 },

  route: (event) => [event.data.serverId],

  // A server stream begins with ServerStarted: a new server has no state to read.
  startsOver: (event) => event.type === 'ServerStarted',

  evolve(state, event) {
    if (event.type === 'ServerTtlExpired' || event.type === 'ServerStartupTimedOut' || event.type === 'ServerClaimLeaseExpired') return state;
    const server = serverDecider.evolve(state.server, event);
    const launched = event.type === 'ServerStarted' || event.type === 'ServerRestarted' || (event.type === 'ServerCrashed' && server.status === 'launching');
    const next = { server, launches: state.launches + (launched ? 1 : 0), restarts: state.restarts + (event.type === 'ServerRestarted' ? 1 : 0) };
    const lease = leaseAfter(state.leaseUntil ?? null, event);
    return lease === null ? next : { ...next, leaseUntil: lease };
  },

  react(state, event) {
    const s = state.server;
    if (s.status === 'none') return [];
    const serverId = s.serverId;
    const intents: ServerLifecycleIntent[] = [];
    switch (event.type) {
      case 'ServerTtlExpired':
        // Only the deadline as it stands: a timer of a deadline that moved since is stale.
        if (s.status !== 'stopped' && ttlDeadline(s)?.toISOString() === event.data.at) {
          intents.push(command(state, serverId, { type: 'StopServer', reason: 'TTL_EXPIRED', now: event.data.at }, `server-ttl:${serverId}:${event.data.at}`));
        }
        return intents;
      case 'ServerClaimLeaseExpired':
        // Only the lease as it stands: met (a player came) or ended (stopped) since, the timer is stale.
        if (s.status !== 'stopped' && state.leaseUntil === event.data.at) {
          // A game that resets itself goes back to the pool (a new match id); any other is stopped.
          const release = s.status === 'running' && s.poolClaimedAt !== null && s.gameStatus?.resettable === true;
          intents.push(command(state, serverId, release
            ? { type: 'ReleasePoolServer', matchId: `released:${serverId}:${event.data.at}`, reason: 'CLAIM_LEASE_EXPIRED', now: event.data.at }
            : { type: 'StopServer', reason: 'CLAIM_LEASE_EXPIRED', now: event.data.at }, `server-lease:${serverId}:${event.data.at}`));
        }
        return intents;
      case 'ServerStartupTimedOut':
        if (s.status === 'launching' && state.launches === event.data.launch) {
          intents.push(command(state, serverId, { type: 'StopServer', reason: 'STARTUP_FAILURE_TIMEOUT', now: event.data.at }, `server-startup:${serverId}:${event.data.launch}`));
        }
        return intents;
      case 'ServerStarted':
      case 'ServerRestarted':
        intents.push(startup(state, serverId, event.data.at));
        break;
      case 'ServerCrashed':
        if (s.status === 'launching' && s.autoRestart && event.data.attempt <= MAX_AUTO_RESTARTS) {
          intents.push(startup(state, serverId, event.data.at), {
            kind: 'command',
            target: { request: 'RestartCrashedServer', projectId: s.projectId },
            command: { type: 'RestartCrashedServer', projectId: s.projectId, serverId, attempt: event.data.attempt, now: event.data.at },
            key: `server-crash-restart:${serverId}:${state.restarts}:${event.data.attempt}`,
          });
        }
        break;
      case 'ServerRunning':
        intents.push({ kind: 'cancel-timer', id: startupTimer(serverId) });
        break;
      case 'ServerStopped':
        intents.push({ kind: 'cancel-timer', id: startupTimer(serverId) });
        break;
    }
    if (TTL_EVENTS.has(event.type)) intents.push(ttl(state, serverId));
    // Not cancelled when met: the timer then finds the lease gone and does nothing (one row, fired once).
    if (event.type === 'ServerPoolClaimed' && state.leaseUntil) {
      intents.push({ kind: 'timer', id: leaseTimer(serverId), at: state.leaseUntil, then: { type: 'ServerClaimLeaseExpired', data: { serverId, at: state.leaseUntil } } });
    }
    const leftPool = event.type === 'ServerPoolClaimed' || (event.type === 'ServerStopped' && s.poolClaimedAt === null);
    if (s.isPoolServer && leftPool) {
      intents.push({
        kind: 'command',
        target: { request: 'RefillPool', projectId: s.projectId },
        command: { type: 'RefillPool', projectId: s.projectId, region: s.region, computeSize: s.computeSize, replacing: serverId, now: event.data.at },
        key: `pool-refill:${serverId}`,
      });
    }
    return intents;
  },
};

/** The lease after an event: set by a claim with `leaseSeconds`, met by a report of at least one player, gone with the stop. */
function leaseAfter(current: string | null, event: ServerEvent): string | null {
  if (event.type === 'ServerPoolClaimed') return event.data.leaseSeconds ? timeAfter(event.data.at, event.data.leaseSeconds * 1000) : null;
  if (current === null) return null;
  if ((event.type === 'ServerGameStatusReported' && (event.data.players ?? 0) > 0) || event.type === 'ServerStopped' || event.type === 'ServerPoolReleased') return null;
  return current;
}
