// Request deadlines on real NATS (issue 36 item 12, ADR-0020): a request that reaches its handler after
// its deadline is dropped unrun, whether it arrives late because it waited in a socket while NATS hung
// (the reported case: a start applied 30 s later) or because it was sent with a deadline already past.
import { randomUUID } from 'node:crypto';
import { connect, headers as natsHeaders } from 'nats';
import { BusUnavailable, DEADLINE_HEADER, NatsBus, runWithDeadline } from '@spawnpoint/messaging';
import { NATS_URL } from '../../../../test/support/nats';
import { OwnNats, startOwnNats } from '../../../../test/support/own-services';
import { natsTestStream } from '../../../messaging/src/testing/nats-test-bus';
import { sleep } from '../../../messaging/src/testing/wait';
import { captureLogs } from '../../../logging/src/testing';
import { serve } from './serve';

describe('serve: request deadlines', () => {
  jest.setTimeout(60_000);

  describe('on the shared NATS', () => {
    const stream = natsTestStream(NATS_URL);
    let server: NatsBus;
    let caller: NatsBus;
    const subject = `test.deadline.${randomUUID()}`;
    const ran: unknown[] = [];
    beforeAll(async () => {
      server = await stream.connect('deadline-server');
      caller = await stream.connect('deadline-caller');
      await serve(server, { [subject]: (payload: unknown) => { ran.push(payload); return { ok: true }; } });
    });
    afterAll(async () => {
      await Promise.all([server?.close(), caller?.close()]);
      await stream.delete();
    });

    it('a request within its deadline runs, and carries the deadline (now + its timeout)', async () => {
      const before = Date.now();
      await expect(caller.request(subject, { n: 1 }, { timeoutMs: 2_000 })).resolves.toEqual({ ok: true });
      expect(ran).toEqual([{ n: 1 }]);
      // The header as a raw subscriber sees it.
      const nc = await connect({ servers: NATS_URL });
      try {
        const seen = nc.subscribe(`${subject}.raw`, { max: 1 });
        const sent = caller.request(`${subject}.raw`, {}, { timeoutMs: 1_500 }).catch(() => undefined);
        for await (const m of seen) {
          const deadline = Number(m.headers?.get(DEADLINE_HEADER));
          expect(deadline).toBeGreaterThanOrEqual(before + 1_500);
          expect(deadline).toBeLessThanOrEqual(Date.now() + 1_500);
          m.respond(new TextEncoder().encode('{"ok":true}'));
        }
        await sent;
      } finally {
        await nc.close();
      }
    });

    it('a request that arrives after its deadline is answered 503 and never runs', async () => {
      ran.length = 0;
      const nc = await connect({ servers: NATS_URL });
      try {
        const h = natsHeaders();
        h.set(DEADLINE_HEADER, String(Date.now() - 1));
        const reply = await nc.request(subject, new TextEncoder().encode('{"n":2}'), { timeout: 2_000, headers: h });
        expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ error: { status: 503, error: expect.stringContaining('deadline') } });
      } finally {
        await nc.close();
      }
      expect(ran).toEqual([]);
    });

    it("the caller's deadline bounds the request: the earlier one wins, and one already past sends nothing", async () => {
      ran.length = 0;
      const slow = `${subject}.slow`;
      await serve(server, { [slow]: async () => { await sleep(1_000); return { ok: true }; } });
      const started = Date.now();
      await expect(runWithDeadline(Date.now() + 300, () => caller.request(slow, {}, { timeoutMs: 5_000 }))).rejects.toBeInstanceOf(BusUnavailable);
      expect(Date.now() - started).toBeLessThan(900);
      await expect(runWithDeadline(Date.now() - 1, () => caller.request(subject, { n: 3 }, { timeoutMs: 5_000 }))).rejects.toThrow('timeout');
      await sleep(200);
      expect(ran).toEqual([]);
    });
  });

  describe('through a NATS hang (a private server, frozen and resumed)', () => {
    let nats: OwnNats;
    let server: NatsBus;
    let caller: NatsBus;
    const subject = `test.deadline.outage.${randomUUID()}`;
    const ran: unknown[] = [];
    beforeAll(async () => {
      nats = await startOwnNats();
      server = await NatsBus.connect({ servers: nats.url, name: 'outage-server' });
      caller = await NatsBus.connect({ servers: nats.url, name: 'outage-caller' });
      await serve(server, { [subject]: (payload: unknown) => { ran.push(payload); return { ok: true }; } });
    });
    afterAll(async () => {
      await Promise.all([server?.close(), caller?.close()]).catch(() => undefined);
      await nats?.remove();
    });

    it('a request sent while NATS hangs and delivered after its deadline is not run', async () => {
      const logs = captureLogs();
      try {
        await expect(caller.request(subject, { n: 'before' }, { timeoutMs: 2_000 })).resolves.toEqual({ ok: true });
        // A hung NATS (or a partition): the connections stay up, and what the caller sends waits in its
        // socket until NATS resumes, long after the caller gave up (the reported start applied 30 s later).
        await nats.pause();
        await expect(caller.request(subject, { n: 'during' }, { timeoutMs: 500 })).rejects.toBeInstanceOf(BusUnavailable);
        await sleep(1_000);
        nats.resume();
        // Sent after the late one on the same connection, so answered after it was handled.
        await expect(caller.request(subject, { n: 'after' }, { timeoutMs: 5_000 })).resolves.toEqual({ ok: true });
        await sleep(200);
        expect(ran).toEqual([{ n: 'before' }, { n: 'after' }]);
        // It was delivered (not simply lost), and dropped by the handler's wrapper, about 1 s late.
        const dropped = logs.records().filter((r) => r.msg.startsWith(`bus: dropped ${subject}`));
        expect(dropped).toHaveLength(1);
        expect(dropped[0].late_ms).toBeGreaterThan(300);
      } finally {
        logs.restore();
      }
    });

    it('the same request delivered before its deadline is run (a short hang)', async () => {
      ran.length = 0;
      await nats.pause();
      const sent = caller.request(subject, { n: 'short hang' }, { timeoutMs: 3_000 });
      await sleep(300);
      nats.resume();
      await expect(sent).resolves.toEqual({ ok: true });
      expect(ran).toEqual([{ n: 'short hang' }]);
    });
  });
});
