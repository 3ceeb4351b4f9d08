// given / when / then for deciders, so specs read like the contract.
import { Decider, DomainEvent, fold } from './decider';
import { DomainError, DomainErrorCode } from './errors';

export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, history: E[] = []) {
  const state = fold(decider, history);
  return {
    state,
    when(command: C) {
      let events: E[] | undefined;
      let error: unknown;
      try {
        events = decider.decide(command, state);
      } catch (e) {
        error = e;
      }
      return {
        then(expected: E[]) {
          if (error) throw error;
          expect(events).toEqual(expected);
          return fold(decider, [...history, ...(events ?? [])]);
        },
        thenNothing() {
          if (error) throw error;
          expect(events).toEqual([]);
        },
        thenError(code: DomainErrorCode, message?: string | RegExp): DomainError {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
          if (message) expect((error as DomainError).message).toMatch(message);
          return error as DomainError;
        },
      };
    },
  };
}
