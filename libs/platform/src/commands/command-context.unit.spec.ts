import { DomainError } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { RecentCommands } from './command-context';

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};

describe('RecentCommands (a re-sent command is not run twice)', () => {
  it('joins a command still in flight and answers its outcome', async () => {
    const recent = new RecentCommands();
    const first = deferred<string>();
    let runs = 0;
    const work = () => { runs++; return first.promise; };
    const a = recent.run('servers.start', 'c1', { n: 1 }, work);
    const b = recent.run('servers.start', 'c1', { n: 1 }, work);
    first.resolve('server-1');
    expect(await Promise.all([a, b])).toEqual(['server-1', 'server-1']);
    expect(runs).toBe(1);
  });

  it('answers a finished command again, a refusal included, until the time to live passes', async () => {
    let now = 0;
    const recent = new RecentCommands(1000, 100, () => now);
    let runs = 0;
    const refuse = async () => { runs++; throw new DomainError('conflict', 'server is already stopped'); };
    await expect(recent.run('servers.stop', 'c2', {}, refuse)).rejects.toThrow('already stopped');
    await expect(recent.run('servers.stop', 'c2', {}, refuse)).rejects.toThrow('already stopped');
    expect(runs).toBe(1);
    now = 1000;
    await expect(recent.run('servers.stop', 'c2', {}, refuse)).rejects.toThrow('already stopped');
    expect(runs).toBe(2);
  });

  it('runs again after a failure that may be transient (5xx)', async () => {
    const recent = new RecentCommands();
    let runs = 0;
    const flaky = async () => {
      runs++;
      if (runs === 1) throw new RemoteError({ error: 'Service unavailable', status: 503 });
      return 'ok';
    };
    await expect(recent.run('lobbies.join', 'c3', {}, flaky)).rejects.toThrow('Service unavailable');
    await expect(recent.run('lobbies.join', 'c3', {}, flaky)).resolves.toBe('ok');
    expect(runs).toBe(2);
  });

  it('keys by subject, id and payload: another payload or subject is another command', async () => {
    const recent = new RecentCommands();
    let runs = 0;
    const work = async () => ++runs;
    await recent.run('a', 'c4', { x: 1 }, work);
    await recent.run('a', 'c4', { x: 2 }, work);
    await recent.run('b', 'c4', { x: 1 }, work);
    expect(runs).toBe(3);
  });

  it('keeps at most its capacity', async () => {
    const recent = new RecentCommands(60_000, 3);
    for (let i = 0; i < 10; i++) await recent.run('a', `c${i}`, {}, async () => i);
    expect(recent.size).toBeLessThanOrEqual(3);
  });
});
