import { DomainError, notFound } from '@spawnpoint/domain';
import { ServerView, SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import type { MachineMetrics } from '@spawnpoint/runtime';
import { LogReadDeps, serverLogHistogram, serverLogs, serverMetrics } from './log-reads';

/** Each log read under its bus subject, as the query handlers serve them. */
const logHandlers = (deps: LogReadDeps): Record<string, (request: any, ctx?: unknown) => Promise<unknown>> => ({
  [SUBJECTS.servers.logs]: (r) => serverLogs(deps, r),
  [SUBJECTS.servers.logHistogram]: (r) => serverLogHistogram(deps, r),
  [SUBJECTS.servers.metrics]: (r) => serverMetrics(deps, r),
});

const NOW = new Date('2026-11-21T12:00:00.000Z');
const ID = '6f1c1d2e-8a4b-4c1d-9e2f-3a4b5c6d7e8f';

function setup(status: ServerView['status'], measured: MachineMetrics | null) {
  const asked: string[] = [];
  const lookups: string[] = [];
  const handlers = logHandlers({
    db: {} as ReadModels, // metrics and refused requests never touch the database
    runtime: { metrics: async (id: string) => { asked.push(id); return measured; } },
    getServer: async (projectId, serverId) => {
      lookups.push(serverId);
      if (projectId !== 'p1') throw notFound('server');
      return { instance_id: serverId, status, region: 'us-east' } as ServerView;
    },
    now: () => NOW,
  });
  return { handlers, asked, lookups };
}

const live: MachineMetrics = { cpu_percent: 12.5, memory_bytes: 4096, memory_limit_bytes: null, network_rx_bytes: null, network_tx_bytes: null, sampled_at: '2026-11-21T11:59:59.000Z' };
const nulls = { cpu_percent: null, memory_bytes: null, memory_limit_bytes: null, network_rx_bytes: null, network_tx_bytes: null, sampled_at: NOW.toISOString() };
const call = (h: ReturnType<typeof logHandlers>, subject: string, payload: object) => h[subject](payload, {} as never) as Promise<any>;

describe('log reads: metrics', () => {
  it('returns exactly the runtime figures of a running server', async () => {
    const { handlers, asked } = setup('running', { ...live, extra: 1 } as MachineMetrics);
    expect(await call(handlers, SUBJECTS.servers.metrics, { projectId: 'p1', serverId: ID })).toEqual(live);
    expect(asked).toEqual([ID]);
  });

  it('is all null, sampled now, when the runtime does not run the server', async () => {
    const { handlers } = setup('running', null);
    expect(await call(handlers, SUBJECTS.servers.metrics, { projectId: 'p1', serverId: ID })).toEqual(nulls);
  });

  it('does not ask the runtime about a stopped server', async () => {
    const { handlers, asked } = setup('stopped', live);
    expect(await call(handlers, SUBJECTS.servers.metrics, { projectId: 'p1', serverId: ID })).toEqual(nulls);
    expect(asked).toEqual([]);
  });

  it('is 404 for another project\'s server', async () => {
    const { handlers } = setup('running', live);
    await expect(call(handlers, SUBJECTS.servers.metrics, { projectId: 'p2', serverId: ID })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('log reads: logs and histogram parameters', () => {
  it('refuses bad parameters with 422 before looking the server up', async () => {
    const { handlers, lookups } = setup('running', null);
    const histogram = call(handlers, SUBJECTS.servers.logHistogram, { projectId: 'p1', serverId: ID, step: 4 });
    await expect(histogram).rejects.toBeInstanceOf(DomainError);
    await expect(histogram).rejects.toMatchObject({ code: 'invalid', detail: [{ loc: ['query', 'step'] }] });
    await expect(call(handlers, SUBJECTS.servers.logs, { projectId: 'p1', serverId: ID, start_time: 'yesterday' }))
      .rejects.toMatchObject({ code: 'invalid', detail: [{ loc: ['query', 'start_time'] }] });
    expect(lookups).toEqual([]);
  });
});
