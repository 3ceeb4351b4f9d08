// given / when / then for workflows: given this history (of one instance), when this event, then these intents.
import { DomainEvent } from '../kit';
import { Intent, Workflow } from './workflow';

export function givenWorkflow<E extends DomainEvent, S, I extends Intent>(workflow: Workflow<E, S, I>, history: E[] = []) {
  const state = history.reduce((s, e) => workflow.evolve(s, e), workflow.initialState);
  return {
    state,
    when(event: E) {
      const next = workflow.evolve(state, event);
      const intents = workflow.react(next, event);
      return {
        state: next,
        then(expected: I[]) {
          expect(intents).toEqual(expected);
          return next;
        },
        thenNothing() {
          expect(intents).toEqual([]);
          return next;
        },
      };
    },
  };
}
