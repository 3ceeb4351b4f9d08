// What a service tells the gateway about itself over the bus (proto/src/health.ts): its health (event
// store, database, its projections' parked counts and lag) and its projections' parked events. The
// gateway then needs no event store and reads no service's tables, in either mode.
import type { EventStore } from '@spawnpoint/eventstore';
import type { Bus } from '@spawnpoint/messaging';
import {
  DependencyCheck,
  ListParkedReply,
  ListParkedRequest,
  parkedListSubject,
  SERVICE_NAMES,
  serviceHealthSubject,
  ServiceHealthReport,
} from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { listParked, projectionsHealth } from './parked-events';
import type { ProjectionRunner } from './projection-runner';
import type { Handlers } from '../commands/serve';

/** Each check gets this long; the gateway's own deadline is a little longer. */
const CHECK_MS = 1500;

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))])
    .finally(() => clearTimeout(timer));
}

async function check(fn: () => Promise<unknown>): Promise<DependencyCheck> {
  try {
    await within(CHECK_MS, fn());
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

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
        check(() => store.ping()),
        check(() => db.$queryRaw`SELECT 1`),
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
export function askEveryService<T>(bus: Bus, subject: (service: string) => string, payload: unknown, timeoutMs: number): Promise<ServiceAnswer<T>[]> {
  return Promise.all(SERVICE_NAMES.map((service) => bus.request<T>(subject(service), payload, { timeoutMs }).then(
    (reply): ServiceAnswer<T> => ({ service, ok: true, reply }),
    (err: Error): ServiceAnswer<T> => ({ service, ok: false, error: err.message }),
  )));
}
