import { KeyedLane } from './keyed-lane';

describe('KeyedLane', () => {
  it('runs work for one key in order, one at a time, and other keys alongside', async () => {
    const lane = new KeyedLane();
    const log: string[] = [];
    const step = (name: string, ms: number) => () => new Promise<void>((r) => setTimeout(() => { log.push(name); r(); }, ms));
    await Promise.all([lane.run('a', step('a1', 30)), lane.run('a', step('a2', 1)), lane.run('b', step('b1', 10))]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
  });

  it('keeps going after a failure', async () => {
    const lane = new KeyedLane();
    await expect(lane.run('a', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(lane.run('a', async () => 'ok')).resolves.toBe('ok');
  });
});
