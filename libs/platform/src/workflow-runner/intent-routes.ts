// One dispatcher for every service: a workflow's command intent goes to the route of its target — a command
// on the named aggregate, or the named request — typed by the target (AggregateCommands, WorkflowRequests),
// so a route receives its own command type. An intent with no route here throws (the runner retries it
// and reports it): it belongs to another service's runner, which is a wiring error.
import type { AggregateCommands, CommandIntent, WorkflowRequests } from '@spawnpoint/domain';
import type { IntentDispatcher } from './workflow-runner';

export interface IntentRoutes {
  aggregates?: { [A in keyof AggregateCommands]?: (id: string, command: AggregateCommands[A], intent: CommandIntent) => Promise<unknown> };
  requests?: { [R in keyof WorkflowRequests]?: (command: WorkflowRequests[R], intent: CommandIntent) => Promise<unknown> };
}

type AnyRoute = (...args: [string, { type: string }, CommandIntent] | [{ type: string }, CommandIntent]) => Promise<unknown>;

export function routeIntents(service: string, routes: IntentRoutes): IntentDispatcher {
  const aggregates = new Map<string, AnyRoute>(Object.entries(routes.aggregates ?? {}) as [string, AnyRoute][]);
  const requests = new Map<string, AnyRoute>(Object.entries(routes.requests ?? {}) as [string, AnyRoute][]);
  return async (intent) => {
    const t = intent.target;
    // The outbox holds what a workflow's react produced for this target: its command is the target's type.
    if ('aggregate' in t) {
      const route = aggregates.get(t.aggregate);
      if (route) return void (await route(t.id, intent.command, intent));
    } else {
      const route = requests.get(t.request);
      if (route && intent.command.type === t.request) return void (await route(intent.command, intent));
    }
    throw new Error(`${service}: no route for the intent ${intent.key}`);
  };
}
