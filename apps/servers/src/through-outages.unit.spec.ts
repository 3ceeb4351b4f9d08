import { DomainError } from '@spawnpoint/domain';
import { throughOutages } from './through-outages';

// An error as the pg client raises it when the database goes away mid-query.
const outage = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

describe('throughOutages: store work for a running game survives a dependency outage', () => {
  it('retries while the dependency is away and answers once it is back', async () => {
    let calls = 0;
    const result = await throughOutages('test work', async () => {
      calls += 1;
      if (calls < 4) throw outage();
      return 'applied';
    }, { firstDelayMs: 1 });
    expect([result, calls]).toEqual(['applied', 4]);
  });

  it('does not retry a refusal: it is the answer', async () => {
    let calls = 0;
    await expect(throughOutages('test work', async () => {
      calls += 1;
      throw new DomainError('conflict', 'server is stopped');
    }, { firstDelayMs: 1 })).rejects.toThrow('server is stopped');
    expect(calls).toBe(1);
  });

  it('stops retrying once the service shuts down, with the last error', async () => {
    let calls = 0;
    let active = true;
    await expect(throughOutages('test work', async () => {
      calls += 1;
      if (calls === 2) active = false;
      throw outage();
    }, { firstDelayMs: 1, active: () => active })).rejects.toThrow('Connection terminated unexpectedly');
    expect(calls).toBe(2);
  });

  it('takes its own rule of what is worth another try', async () => {
    let calls = 0;
    const result = await throughOutages('test work', async () => {
      calls += 1;
      if (calls === 1) throw new Error('wrong expected revision');
      return calls;
    }, { firstDelayMs: 1, retryIf: (err) => !(err instanceof DomainError) });
    expect(result).toBe(2);
  });
});
