// The bus adapter of a service: each routed subject's request is checked against its contract
// (proto), becomes its message class, and goes to the CommandBus or the QueryBus. No use case code here.
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { COMMAND_ID_HEADER } from '@spawnpoint/messaging';
import { parseBusRequest } from '@spawnpoint/proto';
import type { Handlers } from '../serve';
import { BusCommand, BusRoute } from './bus-message';

export function routeHandlers(routes: BusRoute[], commands: CommandBus, queries: QueryBus): Handlers {
  const handlers: Handlers = {};
  for (const { subject, message } of routes) {
    if (handlers[subject]) throw new Error(`bus subject ${subject} is routed twice`);
    handlers[subject] = (payload, ctx) => {
      const request = parseBusRequest(subject, payload);
      const built = new message(request, { commandId: ctx.headers[COMMAND_ID_HEADER] ?? null, headers: ctx.headers });
      return built instanceof BusCommand ? commands.execute(built) : queries.execute(built);
    };
  }
  return handlers;
}
