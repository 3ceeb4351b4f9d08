// What a service reports over the bus, on real PostgreSQL: its own projections' health (parked count,
// lag) and parked events, never another service's, which is what the gateway's /api/health and admin
// parked-events routes are made of.
import { InProcessBus } from '@spawnpoint/messaging';
import { ListParkedReply, parkedListSubject, serviceHealthSubject, ServiceHealthReport } from '@spawnpoint/proto';
import { captureLogs } from '../../../logging/src/testing';
import { createProjectionTestBed, ProjectionTestBed } from '../../../../test/support/projections';
import { Projection, ProjectionRunner } from './projection-runner';
import { serve } from '../commands/serve';
import { askEveryService, serviceReportHandlers } from './service-reports';

/** Fails every event whose data says `poison`. */
const projection = (name: string, category: string): Projection => ({
  name,
  categories: [category],
  async apply(event) {
    if ((event.data as { poison?: boolean }).poison) throw new Error(`cannot apply ${event.streamId}`);
  },
});

describe('service reports over the bus', () => {
  let bed: ProjectionTestBed;
  const bus = new InProcessBus();
  const runners: ProjectionRunner[] = [];

  beforeAll(async () => {
    bed = await createProjectionTestBed('reports');
    // Two services on one bus and one database, as in standalone.
    for (const [service, name, category] of [['projects', 'rp-projects', 'rpp'], ['builds', 'rp-builds', 'rpb']]) {
      const runner = new ProjectionRunner(bed.store, bed.models, [projection(name, category)], { poisonAttempts: 1 });
      await runner.start();
      runners.push(runner);
      await serve(bus, serviceReportHandlers({ service, runner, store: bed.store, db: bed.models }));
    }
  });
  afterAll(async () => {
    for (const r of runners) await r.stop();
    await bus.close();
    await bed?.close();
  });

  it('each service reports its own projections, with their parked events, and lists only its own parked events', async () => {
    const logs = captureLogs();
    try {
      const { position } = await bed.store.appendToStream('rpb-1', [{ type: 'Bad', data: { poison: true } }], 'no_stream');
      await runners[1].waitFor(position, 'rpb-1', 10_000);
    } finally {
      logs.restore();
    }
    const projects = await bus.request<ServiceHealthReport>(serviceHealthSubject('projects'), {});
    expect(projects).toEqual({ service: 'projects', checks: { eventStore: { ok: true }, database: { ok: true } }, projections: [{ name: 'rp-projects', parked_events: 0, lag_seconds: 0 }] });
    const builds = await bus.request<ServiceHealthReport>(serviceHealthSubject('builds'), {});
    expect(builds.projections).toEqual([{ name: 'rp-builds', parked_events: 1, lag_seconds: 0 }]);

    expect((await bus.request<ListParkedReply>(parkedListSubject('projects'), {})).parked_events).toEqual([]);
    const [parked] = (await bus.request<ListParkedReply>(parkedListSubject('builds'), {})).parked_events;
    expect(parked).toMatchObject({ projection: 'rp-builds', stream_id: 'rpb-1', event_type: 'Bad', attempts: 1 });
    // By id (how the gateway finds a parked event's owner): only its owner has it.
    expect((await bus.request<ListParkedReply>(parkedListSubject('builds'), { id: parked.id })).parked_events).toHaveLength(1);
    expect((await bus.request<ListParkedReply>(parkedListSubject('projects'), { id: parked.id })).parked_events).toEqual([]);
    expect((await bus.request<ListParkedReply>(parkedListSubject('builds'), { projection: 'rp-other' })).parked_events).toEqual([]);
  });

  it('the gateway side asks every service and reports the ones that do not answer, without throwing', async () => {
    const answers = await askEveryService<ServiceHealthReport>(bus, serviceHealthSubject, {}, 1000);
    expect(answers.filter((a) => a.ok).map((a) => a.service).sort()).toEqual(['builds', 'projects']);
    expect(answers.filter((a) => !a.ok).map((a) => a.service).sort()).toEqual(['lobbies', 'servers']);
  });
});
