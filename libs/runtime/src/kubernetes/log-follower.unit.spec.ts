import { PassThrough, Readable } from 'node:stream';
import { LogFollower, type LogLine } from './log-follower';

/** An opener serving the given passes one after another; each pass is what one log request returns. */
function opener(passes: Array<string[] | Error | PassThrough>) {
  const queries: Array<Record<string, string | undefined>> = [];
  const open = async (query: Record<string, string | undefined>) => {
    queries.push(query);
    const pass = passes.shift();
    if (pass === undefined) return Readable.from([]);
    if (pass instanceof Error) throw pass;
    if (pass instanceof PassThrough) return pass;
    return Readable.from([pass.map((l) => `${l}\n`).join('')]);
  };
  return { open, queries };
}

const T = (n: number, fraction = '000000000') => `2026-01-01T00:00:0${n}.${fraction}Z`;

describe('LogFollower', () => {
  it('hands out each line with its timestamp, including lines stamped alike', async () => {
    const lines: LogLine[] = [];
    const { open, queries } = opener([[`${T(1)} one`, `${T(1)} two`, `${T(2, '5')} three`]]);
    const follower = new LogFollower({ open, onLine: (l) => lines.push(l), retryMs: 1 });
    follower.finish();
    await follower.done;
    expect(lines.map((l) => l.message)).toEqual(['one', 'two', 'three']);
    expect(lines[2].timestamp.toISOString()).toBe('2026-01-01T00:00:02.500Z');
    expect(queries[0]).toMatchObject({ follow: 'true', timestamps: 'true', sinceTime: undefined });
  });

  it('reopens a stream that ended while the game runs, from the last timestamp, without repeating lines', async () => {
    const lines: string[] = [];
    const { open, queries } = opener([
      [`${T(1)} a`, `${T(1)} b`],
      new Error('socket hang up'),
      // The API server answers sinceTime from the start of that second: a and b again, then new lines.
      [`${T(1)} a`, `${T(1)} b`, `${T(1)} c`, `${T(3)} d`],
    ]);
    const follower = new LogFollower({ open, onLine: (l) => lines.push(l.message), retryMs: 1 });
    await waitFor(() => queries.length >= 3);
    follower.finish();
    await follower.done;
    expect(lines).toEqual(['a', 'b', 'c', 'd']);
    expect(queries[1].sinceTime).toBe('2026-01-01T00:00:01.000000000Z');
  });

  it('once the game ended, reads what is left and stops', async () => {
    const lines: string[] = [];
    const live = new PassThrough();
    const { open, queries } = opener([live, [`${T(5)} last words`]]);
    const follower = new LogFollower({ open, onLine: (l) => lines.push(l.message), retryMs: 10_000 });
    live.write(`${T(4)} hello\n`);
    await waitFor(() => lines.length === 1);
    follower.finish();
    live.end();
    await follower.done;
    expect(lines).toEqual(['hello', 'last words']);
    expect(queries).toHaveLength(2);
  });

  it('stops at an error that means there is nothing left (the pod is gone)', async () => {
    const gone = Object.assign(new Error('HTTP 404'), { statusCode: 404 });
    const { open, queries } = opener([gone, ['never read']]);
    const follower = new LogFollower({ open, onLine: () => undefined, retryMs: 1, isFinal: (err) => (err as { statusCode?: number }).statusCode === 404 });
    await follower.done;
    expect(queries).toHaveLength(1);
  });

  it('stop() ends a stream that is still open', async () => {
    const live = new PassThrough();
    const { open } = opener([live]);
    const follower = new LogFollower({ open, onLine: () => undefined });
    await new Promise((resolve) => setImmediate(resolve));
    follower.stop();
    await follower.done;
    expect(live.destroyed).toBe(true);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
