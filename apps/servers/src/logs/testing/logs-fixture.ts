// The shared fixture of the logs int specs: a throwaway PostgreSQL database with the read models, servers
// (project p1 unless told) written through the real LogWriter, and the log reads under their bus subjects.
import { randomUUID } from 'node:crypto';
import { notFound } from '@spawnpoint/domain';
import { LogHistogram, LogPage, ProjectLogPage, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { LogLevel } from '@spawnpoint/runtime';
import { createTestDatabase, TestDatabase } from '../../../../../test/support/databases';
import { LogWriter } from '../../log-writer';
import { LogReadDeps, projectLogs, serverLogHistogram, serverLogs, serverMetrics } from '../log-reads';

/** Each log read under its bus subject, as the query handlers serve them. */
const logHandlers = (deps: LogReadDeps): Record<string, (request: any, ctx?: unknown) => Promise<unknown>> => ({
  [SUBJECTS.servers.logs]: (r) => serverLogs(deps, r),
  [SUBJECTS.servers.projectLogs]: (r) => projectLogs(deps, r),
  [SUBJECTS.servers.logHistogram]: (r) => serverLogHistogram(deps, r),
  [SUBJECTS.servers.metrics]: (r) => serverMetrics(deps, r),
});

export const NOW = new Date('2026-11-21T12:00:00.000Z');
export const at = (iso: string) => new Date(iso);

/** Sets up (beforeAll) and drops (afterAll) the database; call inside a describe. */
export function logsFixture(name: string) {
  let db: TestDatabase;
  const f = {
    rm: undefined as unknown as ReadModels,
    handlers: undefined as unknown as ReturnType<typeof logHandlers>,
    servers: new Map<string, ServerView>(),
    /** A server of project p1 (or `projectId`) with the given lines, written through the LogWriter; its row in the servers read model too. */
    async serverWith(lines: [iso: string, level: LogLevel, message: string][], region = 'eu-west', { projectId = 'p1', name = 'game' } = {}): Promise<string> {
      const id = randomUUID();
      f.servers.set(id, { instance_id: id, region, status: 'running' } as ServerView);
      await f.rm.server.create({ data: {
        id, projectId, name, status: 'running', region, computeSize: 'small', versionTag: 'default', networkPorts: [], serviceType: 'match_based',
        autoRestart: false, isPoolServer: false, matchId: id, createdAt: NOW, updatedAt: NOW,
      } });
      const writer = new LogWriter(f.rm);
      for (const [iso, level, message] of lines) writer.add(projectId, { serverId: id, timestamp: at(iso), stream: 'stdout', level, message });
      await writer.flush();
      return id;
    },
    logs: (payload: object) => f.handlers[SUBJECTS.servers.logs]({ projectId: 'p1', ...payload }, {} as never) as Promise<LogPage>,
    projectLogs: (payload: object, projectId = 'p1') => f.handlers[SUBJECTS.servers.projectLogs]({ projectId, ...payload }, {} as never) as Promise<ProjectLogPage>,
    histogram: (payload: object) => f.handlers[SUBJECTS.servers.logHistogram]({ projectId: 'p1', ...payload }, {} as never) as Promise<LogHistogram>,
  };

  beforeAll(async () => {
    db = await createTestDatabase(name);
    await migrateReadModels(db.url);
    f.rm = createReadModels(db.url, 2);
    f.handlers = logHandlers({
      db: f.rm,
      runtime: { metrics: async () => null },
      getServer: async (projectId, serverId) => {
        const s = f.servers.get(serverId);
        if (!s || projectId !== 'p1') throw notFound('server');
        return s;
      },
      now: () => NOW,
    });
  });

  afterAll(async () => {
    await f.rm?.$disconnect();
    await db?.drop();
  });
  return f;
}
