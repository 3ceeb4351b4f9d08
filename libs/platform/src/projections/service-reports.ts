// What a service tells the gateway about itself over the bus (proto/src/health.ts): its health (event
// store, database, its projections' parked counts and lag) and its projections' parked events. The
// gateway then needs no event store and reads no service's tables, in either mode.
import type { EventStore } from '@spawnpoint/eventstore';
import type { Bus, BusSubjects } from '@spawnpoint/messaging';
import {
  ListParkedReply,
  ListParkedRequest,
  parkedListSubject,
  SERVICE_NAMES,
  serviceHealthSubject,
  ServiceHealthReport,
} from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { CHECK_MS, checkWithin, within } from '../nest/checks';
import { listParked, projectionsHealth } from './parked-events';
import type { ProjectionRunner } from './projection-runner';
import type { Handlers } from '../commands/serve';

export interface ReportSources {
  service: string;
  runner: ProjectionRunner;
  store: EventStore;
  db: ReadModels;
}

export function serviceReportHandlers({ service, runner, store, db }: ReportSources): Handlers {
  return {
    [serviceHealthSubject(service)]: async (): Promise<ServiceHealthReport> => {
      // Lag is wall-clock age against the store's commit times: not domain time, so not the injected clock.
      const names = runner.names;
      const [eventStore, database, projections] = await Promise.all([
        checkWithin(() => store.ping()),
        checkWithin(() => db.$queryRaw`SELECT 1`),
        names.length ? within(CHECK_MS, projectionsHealth(db, store, new Date(), names)).catch(() => undefined) : Promise.resolve([]),
      ]);
      return { service, checks: { eventStore, database }, ...(projections ? { projections } : {}) };
    },
    [parkedListSubject(service)]: async (request: ListParkedRequest): Promise<ListParkedReply> => ({
      parked_events: runner.names.length ? await listParked(db, { projections: runner.names, projection: request?.projection, id: request?.id }) : [],
    }),
  };
}

export type ServiceAnswer<T> = { service: string; ok: true; reply: T } | { service: string; ok: false; error: string };

/** The gateway's side: asks every service at once; a service that does not answer is reported, not thrown. */
export function askEveryService<S extends keyof BusSubjects>(
  bus: Bus, subject: (service: string) => S, payload: BusSubjects[S][0], timeoutMs: number,
): Promise<ServiceAnswer<BusSubjects[S][1]>[]> {
  return Promise.all(SERVICE_NAMES.map((service) => bus.request(subject(service), payload, { timeoutMs }).then(
    (reply): ServiceAnswer<BusSubjects[S][1]> => ({ service, ok: true, reply }),
    (err: Error): ServiceAnswer<BusSubjects[S][1]> => ({ service, ok: false, error: err.message }),
  )));
}
