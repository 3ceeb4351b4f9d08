// The fuzz judge: a health check's documented 503 is that route's contract, not a server error;
// every other 5xx, and a health 503 in any other body, still is.
import { FuzzCase } from './cases';
import { Operation } from './operations';
import { isHealthUnavailable, judge, Outcome } from './run';

const op = (method: string, path: string): Operation => ({ listener: 'api', method, path, auth: 'none', params: [] });
const outcome = (o: Operation, status: number, body: unknown): Outcome => ({
  c: { op: o, label: 'random', pathParams: {}, query: [], headers: {} } as FuzzCase,
  status, body,
});
const healthDown = { status: 'degraded', version: '0.1.0', checks: { database: { ok: true }, services: { ok: false, detail: 'servers: timeout' } } };

describe('fuzz judge', () => {
  it('takes a health 503 with a failing check as the documented answer', () => {
    for (const path of ['/api/health', '/api/health/ready']) {
      const o = outcome(op('GET', path), 503, healthDown);
      expect(isHealthUnavailable(o)).toBe(true);
      expect(judge(o)).toEqual([]);
    }
  });

  it('still judges a health 503 without a failing check, in the Error body, or on another route', () => {
    const allOk = outcome(op('GET', '/api/health'), 503, { status: 'ok', checks: { database: { ok: true } } });
    const errorBody = outcome(op('GET', '/api/health'), 503, { error: 'Service unavailable', status: 503 });
    const live = outcome(op('GET', '/api/health/live'), 503, healthDown);
    const other = outcome(op('GET', '/api/v3/servers'), 503, healthDown);
    for (const o of [allOk, errorBody, live, other]) {
      expect(isHealthUnavailable(o)).toBe(false);
      expect(judge(o).some((p) => p.includes(': 503 '))).toBe(true);
    }
  });
});
