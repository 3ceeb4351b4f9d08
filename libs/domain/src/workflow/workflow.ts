// A workflow is a process across aggregates written as a pure decider: it folds the events it reads into
// one state per instance (a lobby, a server) and reacts to each event with intents, as data: a command
// to send, a timer to set, a timer to cancel. Nothing here runs anything: one durable runner
// (libs/platform/src/workflow-runner) subscribes, persists states and timers, and dispatches intents.
// Time and ids arrive on the events (every event carries `at`; a timer's event carries its own due time),
// so the same history always gives the same intents, with the same keys (docs/adr/0010-workflows.md).
import { DomainEvent } from '../kit';

/** Who a command intent is for: a command on one aggregate's stream, or a request a service fulfils. */
export type CommandTarget =
  /** `projectId`: the aggregate's project, when the workflow knows it (the dispatcher may need it for metadata). */
  | { aggregate: string; id: string; projectId: string | null }
  /** A request by name (e.g. 'StartLobbyServer'); the dispatcher maps it to a bus subject. */
  | { request: string; projectId: string | null };

/**
 * A command to send. `key` is deterministic (derived from the instance and what it reacts to): it is the
 * command id the dispatcher sends it with, so a dispatch repeated after a crash is the same command and
 * the service's command-id handling answers it without doing it twice.
 */
export interface CommandIntent<C extends { type: string } = { type: string }> {
  kind: 'command';
  target: CommandTarget;
  command: C;
  key: string;
}

/**
 * At `at` (ISO time), feed `then` to this same instance as if it were an event. Setting a timer with an
 * id that is already set moves it (one timer per id per instance).
 */
export interface TimerIntent<T extends DomainEvent = DomainEvent> {
  kind: 'timer';
  id: string;
  at: string;
  then: T;
}

export interface CancelTimerIntent {
  kind: 'cancel-timer';
  id: string;
}

export type Intent<C extends { type: string } = { type: string }, T extends DomainEvent = DomainEvent> = CommandIntent<C> | TimerIntent<T> | CancelTimerIntent;

/**
 * `route`: the instances an event concerns (none: the workflow ignores it). `react` sees the state after
 * `evolve` applied the event. `E` includes the workflow's own timer events. States are plain JSON.
 */
export interface Workflow<E extends DomainEvent, S, I extends Intent = Intent> {
  /** Its checkpoint, states and timers are stored under this name. */
  readonly name: string;
  /** The event store categories it reads (timer events need none). */
  readonly categories: readonly string[];
  readonly initialState: S;
  route(event: E): string[];
  evolve(state: S, event: E): S;
  react(state: S, event: E): I[];
  /**
   * Events the state before which is known without reading it: an instance's first event (the state before
   * is `initialState`), or one after which the state does not depend on what came before. The runner
   * folds such an event from `initialState` when it does not hold the instance's state, instead of reading
   * the stored one (a round trip per new instance).
   */
  startsOver?(event: E): boolean;
  /**
   * Its instances keep no state: `react` decides from the event alone (`evolve` returns the state it was
   * given). The runner neither reads nor stores a state for it: a write less per event routed.
   */
  readonly stateless?: boolean;
}

/** An ISO time `ms` after `at`. */
export function timeAfter(at: string, ms: number): string {
  return new Date(Date.parse(at) + ms).toISOString();
}
