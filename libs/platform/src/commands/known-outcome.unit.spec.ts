import { BusUnavailable, RemoteError } from '@spawnpoint/messaging';
import { untilKnown } from './known-outcome';

const timeout = () => new BusUnavailable('servers.start', 'timeout');
const gone = () => new BusUnavailable('servers.start', 'no responders');
/** An ask that fails with these errors in turn, then answers 'done'. */
const script = (...errors: Error[]) => {
  let asked = 0;
  const ask = async () => {
    const err = errors[asked++];
    if (err) throw err;
    return 'done';
  };
  return { ask, asked: () => asked };
};

describe('untilKnown (a timed-out command is asked again, never answered 503 while it may be applied)', () => {
  it('asks again after a timeout and answers the outcome', async () => {
    const s = script(timeout(), timeout());
    await expect(untilKnown(s.ask)).resolves.toBe('done');
    expect(s.asked()).toBe(3);
  });

  it('a request nobody received fails at once: it was not applied', async () => {
    const s = script(gone());
    await expect(untilKnown(s.ask)).rejects.toBeInstanceOf(BusUnavailable);
    expect(s.asked()).toBe(1);
  });

  it('after a timeout, waits for a restarting service and asks it', async () => {
    const s = script(timeout(), gone(), gone(), gone());
    await expect(untilKnown(s.ask, { restartWaitMs: 5000 })).resolves.toBe('done');
    expect(s.asked()).toBe(5);
  });

  it('an outcome still unknown after the bounded wait is a 503 that says so', async () => {
    const s = script(timeout(), timeout(), timeout());
    const err = await untilKnown(s.ask).catch((e) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect(err.body).toMatchObject({ status: 503, error: 'Service unavailable: the outcome of this request is not known', detail: expect.stringMatching(/same Idempotency-Key/) });
    const waited = script(timeout(), ...Array.from({ length: 100 }, gone));
    await expect(untilKnown(waited.ask, { restartWaitMs: 300 })).rejects.toMatchObject({ body: { status: 503 } });
  });

  it('other errors are answers and pass through', async () => {
    const refused = new RemoteError({ error: 'server is already stopped', status: 409 });
    const s = script(timeout(), refused);
    await expect(untilKnown(s.ask)).rejects.toBe(refused);
  });
});
