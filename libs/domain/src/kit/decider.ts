// A decider is the whole behaviour of one aggregate as pure functions: time and ids arrive on the
// command, so the same history and command always give the same events.

export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

export interface Decider<C, E extends DomainEvent, S> {
  readonly initialState: S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
}

export function fold<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[]): S {
  return events.reduce((s, e) => decider.evolve(s, e), decider.initialState);
}
