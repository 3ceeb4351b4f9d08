// A command whose reply times out is asked again with the same command id and answered with what
// happened: the service joins the re-sent command to its first run (serve + RecentCommands), on NATS and
// in process alike. Only an outcome still unknown after the bounded wait is a 503, and asking again later
// still does not run the command twice.
import { randomBytes } from 'node:crypto';
import { Bus, BusUnavailable, InProcessBus, RemoteError, runInCommand } from '@spawnpoint/messaging';
import { natsTestStream } from '../../../messaging/src/testing/nats-test-bus';
import { NATS_URL } from '../../../../test/support/nats';
import { untilKnown } from './known-outcome';
import { serve } from './serve';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(['nats', 'in-process'])('asking again after a timeout (%s bus)', (kind) => {
  const stream = natsTestStream(NATS_URL);
  let service: Bus;
  let caller: Bus;
  const subject = (name: string) => `test.outcome.${randomBytes(4).toString('hex')}.${name}`;

  beforeAll(async () => {
    if (kind === 'nats') {
      service = await stream.connect('service');
      caller = await stream.connect('caller');
    } else {
      service = caller = new InProcessBus();
    }
  });
  afterAll(async () => {
    await caller.close();
    if (service !== caller) await service.close();
    if (kind === 'nats') await stream.delete();
  });

  /** A command that takes `ms` to apply and counts how often it was applied. */
  async function slowCommand(ms: number): Promise<{ subject: string; runs: () => number }> {
    let runs = 0;
    const s = subject('slow');
    await serve(service, { [s]: async (p: { n: number }) => { runs++; await sleep(ms); return { applied: p.n, runs }; } });
    return { subject: s, runs: () => runs };
  }

  const asCommand = <T>(commandId: string, fn: () => Promise<T>) => runInCommand({ commandId, outbound: true }, fn);

  it('answers with the outcome of the first run, applied once', async () => {
    const cmd = await slowCommand(400);
    const answer = await asCommand('c1', () => untilKnown(() => caller.request(cmd.subject, { n: 7 }, { timeoutMs: 150 }), { tries: 5 }));
    expect(answer).toEqual({ applied: 7, runs: 1 });
    expect(cmd.runs()).toBe(1);
  });

  it('without a command id, asking again would apply it again (why the id travels)', async () => {
    const cmd = await slowCommand(400);
    // Each ask is a new run that times out again: 5 runs, and still no answer.
    await expect(untilKnown(() => caller.request(cmd.subject, { n: 1 }, { timeoutMs: 150 }), { tries: 5 })).rejects.toThrow('not known');
    expect(cmd.runs()).toBe(5);
  });

  it('an outcome still unknown after the bounded wait is a 503 saying so; the retry later gets the outcome', async () => {
    const cmd = await slowCommand(1200);
    const err = await asCommand('c2', () => untilKnown(() => caller.request(cmd.subject, { n: 2 }, { timeoutMs: 150 }), { tries: 2 })).catch((e) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).body).toMatchObject({ status: 503, error: expect.stringMatching(/outcome .* not known/) });
    await sleep(1300);
    expect(await asCommand('c2', () => caller.request(cmd.subject, { n: 2 }, { timeoutMs: 1000 }))).toEqual({ applied: 2, runs: 1 });
    expect(cmd.runs()).toBe(1);
  });

  it('no responder: nothing was sent, so it fails at once without asking again', async () => {
    let asked = 0;
    const err = await untilKnown(() => { asked++; return caller.request(subject('nobody'), {}, { timeoutMs: 2000 }); }).catch((e) => e);
    expect(err).toBeInstanceOf(BusUnavailable);
    expect(asked).toBe(1);
  });
});
