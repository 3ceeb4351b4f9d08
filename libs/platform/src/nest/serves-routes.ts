// The module's provider that hands a service host its routes (the module file is where routes and host meet).
import type { Provider, Type } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { BusRoute } from '../commands/cqrs/bus-message';
import type { ServiceHost } from './service-host';

/**
 * The module's provider that gives a service host its routes: the module file is where the routes (which
 * import the handlers, which import the service's read model and providers) meet the host that serves them.
 */
export function servesRoutes(host: Type<ServiceHost>, routes: () => BusRoute[]): Provider {
  return {
    provide: Symbol(`${host.name} routes`),
    inject: [host, CommandBus, QueryBus],
    useFactory: (h: ServiceHost, commands: CommandBus, queries: QueryBus) => h.serveRoutes(routes(), { commands, queries }),
  };
}
