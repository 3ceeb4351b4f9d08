import { Admission } from './plan-policy';
import { GameHealth, NetworkPort, RestartOverrides, ServerLaunch, StopReason } from './events';

/** The states a server may report itself in (the v2 API's InstanceState). */
export const REPORTED_STATES = ['launching', 'running', 'stopped'] as const;
export type ReportedState = (typeof REPORTED_STATES)[number];

export type ServerCommand =
  /**
   * `admission`: a start asked for by a caller is admitted by the plan here (compute size, active servers,
   * ttl: the launch's ttl is the one asked for, the event's the one the plan gives); a pool refill has none.
   */
  | ({ type: 'StartServer'; now: string; admission?: Admission } & ServerLaunch)
  /** The runtime saw every configured port bound. */
  | { type: 'MarkRunning'; now: string }
  /** A stop asked for by a caller (manual stop, TTL). */
  | { type: 'StopServer'; reason: StopReason; now: string }
  /** The runtime saw the machine go away on its own. */
  | { type: 'RecordExit'; reason: StopReason; exitCode: number | null; now: string }
  /** `networkPorts`, `buildId`, `version`, `tokenHash`: the new machine's, resolved by the handler. */
  | {
    type: 'RestartServer'; overrides: RestartOverrides; networkPorts: NetworkPort[]; buildId: string | null; version: number | null; tokenHash?: string; now: string;
    /** A crash restart on a replica that does not hold the crashed machine (ADR-0021): the crash's attempt, kept as the restart count. */
    crashAttempt?: number;
  }
  /** The game says it is ready (server token); the only way to running for `readiness: sdk`. */
  | { type: 'ReportReady'; now: string }
  /** The game's player count and/or health (server token); omitted fields keep their last value. */
  /**
   * A server reporting its own state with the project key (the v2 API's X-Server-Status): `running` is the
   * game's ready report, `stopped` asks for a stop (again: nothing), `launching` changes nothing.
   */
  | { type: 'ReportState'; state: ReportedState; now: string }
  | { type: 'ReportGameStatus'; players?: number; health?: GameHealth; message?: string | null; resettable?: boolean; now: string }
  /** Ends a claim whose lease expired, the game being resettable: back to the pool under a new match id. */
  | { type: 'ReleasePoolServer'; matchId: string; reason: 'CLAIM_LEASE_EXPIRED'; now: string }
  | { type: 'UpdateCustomData'; customData: Record<string, unknown> | null; now: string }
  /**
   * `startKey`: the start request's command id, recorded so a retry of that start finds this claim.
   * `ttl`: the one asked for; with `admission`, the plan decides the one the claim gets (as for a start).
   */
  | {
    type: 'ClaimPoolServer'; name: string; customData: Record<string, unknown> | null; ttl: number | null; matchId: string; startKey?: string;
    admission?: Admission; leaseSeconds?: number; now: string;
  };
