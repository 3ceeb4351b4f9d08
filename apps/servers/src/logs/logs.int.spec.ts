// The logs page against real PostgreSQL: lines written by the real LogWriter, queried through the bus
// handlers (validation included). The histogram's spec is log-histogram.int.spec.ts.
import { SUBJECTS } from '@spawnpoint/proto';
import { LogLevel } from '@spawnpoint/runtime';
import { queryLogs } from './log-queries';
import { checkLogsQuery } from './log-window';
import { logsFixture, NOW } from './testing/logs-fixture';

describe('server logs in PostgreSQL', () => {
  const f = logsFixture('logs');
  const { serverWith, logs, projectLogs, servers } = f;

  describe('logs page', () => {
    it('serves the window oldest first in pages joined by next_token, with instance_id and region', async () => {
      const id = await serverWith([
        ['2026-11-21T11:00:03Z', 'info', 'third'], ['2026-11-21T11:00:01Z', 'info', 'first'], ['2026-11-21T11:00:02Z', 'warn', 'second'],
        ['2026-11-21T11:00:05Z', 'error', 'fifth'], ['2026-11-21T11:00:04Z', 'info', 'fourth'],
      ]);
      await serverWith([['2026-11-21T11:00:01Z', 'info', 'another server']]);
      const first = await logs({ serverId: id, limit: 2 });
      expect(first.logs).toEqual([
        { timestamp: '2026-11-21T11:00:01.000Z', message: 'first', level: 'info', instance_id: id, region: 'eu-west' },
        { timestamp: '2026-11-21T11:00:02.000Z', message: 'second', level: 'warn', instance_id: id, region: 'eu-west' },
      ]);
      const second = await logs({ serverId: id, limit: 2, next_token: first.next_token });
      expect(second.logs.map((l) => l.message)).toEqual(['third', 'fourth']);
      const third = await logs({ serverId: id, limit: 2, next_token: second.next_token });
      expect(third).toEqual({ logs: [expect.objectContaining({ message: 'fifth', level: 'error' })], next_token: null });
      expect((await logs({ serverId: id })).logs).toHaveLength(5);
    });

    it('stores a line holding NUL or a lone surrogate (as U+FFFD) with the rest of its batch', async () => {
      const id = await serverWith([['2026-11-21T11:40:00Z', 'info', 'before'], ['2026-11-21T11:40:01Z', 'info', 'a\u0000b\ud800'], ['2026-11-21T11:40:02Z', 'info', 'after']]);
      expect((await logs({ serverId: id })).logs.map((l) => l.message)).toEqual(['before', 'a\ufffdb\ufffd', 'after']);
    });

    it('pages through lines with the same timestamp without skipping or repeating one', async () => {
      const id = await serverWith(Array.from({ length: 7 }, (_, i) => ['2026-11-21T11:30:00.000Z', 'info', `same ${i}`] as [string, LogLevel, string]));
      const seen: string[] = [];
      let token: string | null | undefined;
      do {
        const page = await logs({ serverId: id, limit: 3, ...(token ? { next_token: token } : {}) });
        seen.push(...page.logs.map((l) => l.message));
        token = page.next_token;
      } while (token);
      expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `same ${i}`));
    });

    it('keeps to [start_time, end_time), in ISO or relative to now (default: the last 24 hours)', async () => {
      const id = await serverWith([
        ['2026-11-20T11:59:59.999Z', 'info', 'before the default day'], ['2026-11-20T12:00:00Z', 'info', 'day starts'],
        ['2026-11-21T11:00:00Z', 'info', 'an hour ago'], ['2026-11-21T11:59:00Z', 'info', 'a minute ago'], ['2026-11-21T12:00:00Z', 'info', 'at now'],
      ]);
      const messages = async (q: object) => (await logs({ serverId: id, ...q })).logs.map((l) => l.message);
      expect(await messages({})).toEqual(['day starts', 'an hour ago', 'a minute ago']);
      expect(await messages({ start_time: '-1h', end_time: '-1m' })).toEqual(['an hour ago']);
      expect(await messages({ start_time: '2026-11-21T11:00:00Z', end_time: 'now' })).toEqual(['an hour ago', 'a minute ago']);
      expect(await messages({ start_time: '2026-11-21T13:00:00+02:00', end_time: '2026-11-21T13:00:00.001+02:00' })).toEqual(['an hour ago']);
      expect(await messages({ start_time: '-30s' })).toEqual([]);
    });

    it('searches case-insensitively for a literal substring (%, _ and \\ are plain characters)', async () => {
      const id = await serverWith([
        ['2026-11-21T11:00:01Z', 'warn', 'Warning: lag spike'], ['2026-11-21T11:00:02Z', 'info', 'loaded 100% of assets'],
        ['2026-11-21T11:00:03Z', 'info', 'loaded 1000 assets'], ['2026-11-21T11:00:04Z', 'info', 'map de_dust'],
        ['2026-11-21T11:00:05Z', 'info', 'map dexdust'], ['2026-11-21T11:00:06Z', 'info', 'path C:\\games'], ['2026-11-21T11:00:07Z', 'info', 'ÄRGER über Lag'],
      ]);
      const found = async (search: string) => (await logs({ serverId: id, search })).logs.map((l) => l.message);
      expect(await found('WARNING')).toEqual(['Warning: lag spike']);
      expect(await found('lag')).toEqual(['Warning: lag spike', 'ÄRGER über Lag']);
      expect(await found('0%')).toEqual(['loaded 100% of assets']);
      expect(await found('%')).toEqual(['loaded 100% of assets']);
      expect(await found('de_d')).toEqual(['map de_dust']);
      expect(await found(':\\g')).toEqual(['path C:\\games']);
      expect(await found('ärger')).toEqual(['ÄRGER über Lag']);
      expect(await found("'; DROP TABLE log_lines; --")).toEqual([]);
      expect((await logs({ serverId: id, search: '' })).logs).toHaveLength(7);
    });

    it('ends a page early when its messages would outgrow the byte budget, and always serves at least one line', async () => {
      const big = 'x'.repeat(300);
      const id = await serverWith(Array.from({ length: 5 }, (_, i) => [`2026-11-21T11:00:0${i}Z`, 'info', `${i}${big}`] as [string, LogLevel, string]));
      const q = checkLogsQuery({}, NOW);
      const server = servers.get(id)!;
      const first = await queryLogs(f.rm, server, q, 700); // two 303-byte JSON strings fit, a third does not
      expect(first.logs.map((l) => l.message[0])).toEqual(['0', '1']);
      const rest = await queryLogs(f.rm, server, { ...q, after: checkLogsQuery({ next_token: first.next_token! }, NOW).after }, 700);
      expect(rest.logs.map((l) => l.message[0])).toEqual(['2', '3']);
      const tiny = await queryLogs(f.rm, server, q, 10);
      expect(tiny.logs.map((l) => l.message[0])).toEqual(['0']);
      expect(tiny.next_token).not.toBeNull();
    });

    it('answers 422 for a bad token or time and 404 for another project\'s server', async () => {
      const id = await serverWith([['2026-11-21T11:00:00Z', 'info', 'x']]);
      await expect(logs({ serverId: id, next_token: 'garbage' })).rejects.toMatchObject({ code: 'invalid', detail: [{ loc: ['query', 'next_token'] }] });
      await expect(logs({ serverId: id, end_time: 'tomorrow' })).rejects.toMatchObject({ code: 'invalid', detail: [{ loc: ['query', 'end_time'] }] });
      await expect(f.handlers[SUBJECTS.servers.logs]({ projectId: 'p2', serverId: id }, {} as never)).rejects.toMatchObject({ code: 'not_found' });
    });
  });
  describe('project logs page', () => {
    it('serves every server\'s lines of the project oldest first with server_name and region, paged by next_token; never another project\'s', async () => {
      const a = await serverWith([['2026-11-21T10:00:01Z', 'info', 'a one'], ['2026-11-21T10:00:03Z', 'warn', 'a three']], 'eu-west', { projectId: 'pl', name: 'alpha' });
      const b = await serverWith([['2026-11-21T10:00:02Z', 'error', 'b two'], ['2026-11-21T10:00:04Z', 'info', 'b four']], 'us-east', { projectId: 'pl', name: 'beta' });
      await serverWith([['2026-11-21T10:00:02Z', 'info', 'not theirs']], 'eu-west', { projectId: 'other', name: 'gamma' });
      const all = await projectLogs({ start_time: '2026-11-21T10:00:00Z' }, 'pl');
      expect(all).toEqual({
        logs: [
          { timestamp: '2026-11-21T10:00:01.000Z', message: 'a one', level: 'info', instance_id: a, server_name: 'alpha', region: 'eu-west' },
          { timestamp: '2026-11-21T10:00:02.000Z', message: 'b two', level: 'error', instance_id: b, server_name: 'beta', region: 'us-east' },
          { timestamp: '2026-11-21T10:00:03.000Z', message: 'a three', level: 'warn', instance_id: a, server_name: 'alpha', region: 'eu-west' },
          { timestamp: '2026-11-21T10:00:04.000Z', message: 'b four', level: 'info', instance_id: b, server_name: 'beta', region: 'us-east' },
        ],
        next_token: null,
      });
      const first = await projectLogs({ start_time: '2026-11-21T10:00:00Z', limit: 3 }, 'pl');
      expect(first.logs.map((l) => l.message)).toEqual(['a one', 'b two', 'a three']);
      const rest = await projectLogs({ start_time: '2026-11-21T10:00:00Z', limit: 3, next_token: first.next_token }, 'pl');
      expect(rest).toEqual({ logs: [expect.objectContaining({ message: 'b four' })], next_token: null });
      expect((await projectLogs({ start_time: '2026-11-21T10:00:02Z', end_time: '2026-11-21T10:00:04Z' }, 'pl')).logs.map((l) => l.message)).toEqual(['b two', 'a three']);
      expect(await projectLogs({ start_time: '-1h' }, 'nobody')).toEqual({ logs: [], next_token: null });
    });

    it('answers 422 without start_time, and for a bad limit, time or token', async () => {
      await expect(projectLogs({})).rejects.toMatchObject({ code: 'invalid', detail: [{ loc: ['query', 'start_time'], type: 'missing' }] });
      await expect(projectLogs({ start_time: '-1h', limit: 1001 })).rejects.toMatchObject({ detail: [{ loc: ['query', 'limit'], type: 'less_than_equal' }] });
      await expect(projectLogs({ start_time: 'yesterday' })).rejects.toMatchObject({ detail: [{ loc: ['query', 'start_time'], type: 'value_error' }] });
      await expect(projectLogs({ start_time: '-1h', next_token: 'garbage' })).rejects.toMatchObject({ detail: [{ loc: ['query', 'next_token'] }] });
    });
  });
});
