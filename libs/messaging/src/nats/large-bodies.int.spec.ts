// Bodies over NATS's max_payload (ADR-0019), against a real server: replies and requests by reference,
// broadcasts in parts, and the faults: a lost part, a sender gone, a body over the bound.
import { randomBytes } from 'node:crypto';
import { connect, Empty, headers as natsHeaders, type NatsConnection } from 'nats';
import { NATS_URL } from '../../../../test/support/nats';
import { BusUnavailable } from '../bus';
import { captureLogs } from '../../../logging/src/testing';
import { natsTestStream } from '../testing/nats-test-bus';
import { waitFor } from '../testing/wait';
import type { IntegrationEvent } from '../bus';
import type { NatsBus } from './nats-bus';

const MiB = 1024 * 1024;
/** A JSON string of `bytes` characters that does not compress into anything clever. */
const blob = (bytes: number) => randomBytes(Math.ceil(bytes / 2)).toString('hex').slice(0, bytes);

describe('NatsBus: bodies over the message limit', () => {
  const stream = natsTestStream(NATS_URL);
  let a: NatsBus;
  let b: NatsBus;
  let raw: NatsConnection;
  let unique: string;
  const subject = (s: string) => `test.${unique}.${s}`;

  beforeAll(async () => {
    [a, b, raw] = await Promise.all([stream.connect('large-a'), stream.connect('large-b'), connect({ servers: NATS_URL })]);
  });
  beforeEach(() => {
    unique = randomBytes(4).toString('hex');
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close(), raw.close()]);
    await stream.delete();
  });

  it('the server limits messages to its max_payload (the case this is for)', async () => {
    expect(raw.info!.max_payload).toBeLessThan(5 * MiB);
    expect(() => raw.publish(subject('x'), new Uint8Array(raw.info!.max_payload + 1))).toThrow(/MAX_PAYLOAD_EXCEEDED/);
  });

  it('answers a 5 MiB reply and takes a 5 MiB request, byte for byte, with the handler seeing only the sender\'s headers', async () => {
    const big = blob(5 * MiB);
    let seen: { length: number; headers: Record<string, string> } | null = null;
    await b.handle(subject('echo'), (payload: { text: string }, ctx) => {
      seen = { length: payload.text.length, headers: ctx.headers };
      return { text: payload.text, twice: payload.text.length * 2 };
    });
    const reply = await a.request<{ text: string; twice: number }>(subject('echo'), { text: big }, { headers: { 'x-project-id': 'p-1' } });
    expect(reply.text === big).toBe(true);
    expect(reply.twice).toBe(10 * MiB);
    expect(seen!.length).toBe(5 * MiB);
    expect(Object.keys(seen!.headers).filter((k) => k.startsWith('Spawnpoint-'))).toEqual([]);
    expect(seen!.headers['x-project-id']).toBe('p-1');
  });

  it('sends a small reply as one plain message, as before (nothing changes on the wire under the limit)', async () => {
    await b.handle(subject('small'), () => ({ n: 1 }));
    const msg = await raw.request(subject('small'), new TextEncoder().encode('{}'), { timeout: 2000 });
    expect(new TextDecoder().decode(msg.data)).toBe('{"ok":true,"data":{"n":1}}');
    expect(msg.headers?.get('Spawnpoint-Body') ?? '').toBe('');
  });

  it('answers 40 concurrent large requests each with its own reply, with two replicas sharing them', async () => {
    const c = await stream.connect('large-c');
    try {
      for (const replica of [b, c]) await replica.handle(subject('rev'), (p: { id: number; text: string }) => ({ id: p.id, text: p.text, tail: p.text.slice(-16) }));
      const texts = Array.from({ length: 40 }, () => blob(MiB + 300 * 1024));
      const started = Date.now();
      const replies = await Promise.all(texts.map((text, id) => a.request<{ id: number; text: string; tail: string }>(subject('rev'), { id, text }, { timeoutMs: 20_000 })));
      for (const [i, r] of replies.entries()) {
        expect(r.id).toBe(i);
        expect(r.text === texts[i]).toBe(true);
        expect(r.tail).toBe(texts[i].slice(-16));
      }
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await c.close();
    }
  });

  it('fails a request whose reply loses a part with a timeout, within the request timeout, not a hang', async () => {
    // A responder that announces three parts and sends two: the pull ends at its deadline.
    const sub = raw.subscribe(subject('lossy'), {
      callback: (_err, msg) => {
        const h = natsHeaders();
        h.set('Spawnpoint-Body', subject('lossy-body'));
        h.set('Spawnpoint-Body-Parts', '3');
        h.set('Spawnpoint-Body-Size', '30');
        msg.respond(Empty, { headers: h });
      },
    });
    const body = raw.subscribe(subject('lossy-body'), {
      callback: (_err, msg) => {
        for (const offset of [0, 20]) {
          const h = natsHeaders();
          h.set('Spawnpoint-Body-Offset', String(offset));
          raw.publish(msg.reply!, new Uint8Array(10).fill(0x20), { headers: h });
        }
      },
    });
    await raw.flush();
    const started = Date.now();
    const err = await a.request(subject('lossy'), {}, { timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusUnavailable);
    // A timeout: the caller asks again with the same command id (known-outcome.ts), as for a lost reply.
    expect((err as Error).message).toMatch(/2 of 3 parts.*: timeout$/);
    expect(Date.now() - started).toBeLessThan(2 * 1500 + 1000);
    sub.unsubscribe();
    body.unsubscribe();
  });

  it('fails at once when the reply\'s sender no longer holds the body, and refuses a body over the bound', async () => {
    const refer = (subjectName: string, size: number) =>
      raw.subscribe(subject(subjectName), {
        callback: (_err, msg) => {
          const h = natsHeaders();
          // The reference points into a's own outbox, at a token it never offered.
          h.set('Spawnpoint-Body', `_SPAWNPOINT_BODY.nobody.${unique}`);
          h.set('Spawnpoint-Body-Parts', '2');
          h.set('Spawnpoint-Body-Size', String(size));
          msg.respond(Empty, { headers: h });
        },
      });
    const gone = refer('gone', 100);
    const huge = refer('huge', 300 * MiB);
    const outbox = raw.subscribe(`_SPAWNPOINT_BODY.nobody.${unique}`, {
      callback: (_err, msg) => {
        const h = natsHeaders();
        h.set('Spawnpoint-Body-Gone', '1');
        msg.respond(Empty, { headers: h });
      },
    });
    await raw.flush();
    const started = Date.now();
    await expect(a.request(subject('gone'), {}, { timeoutMs: 5000 })).rejects.toThrow(/no longer holds it/);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(a.request(subject('huge'), {}, { timeoutMs: 5000 })).rejects.toThrow(/over the bound of 268435456/);
    for (const s of [gone, huge, outbox]) s.unsubscribe();
  });

  it('answers 503 at once to a request whose body its sender no longer holds (the handler never runs)', async () => {
    let ran = false;
    await b.handle(subject('orphan'), () => {
      ran = true;
      return 1;
    });
    const h = natsHeaders();
    h.set('Spawnpoint-Body', `_SPAWNPOINT_BODY.gone.${unique}`);
    h.set('Spawnpoint-Body-Parts', '1');
    h.set('Spawnpoint-Body-Size', '10');
    const outbox = raw.subscribe(`_SPAWNPOINT_BODY.gone.${unique}`, {
      callback: (_err, msg) => {
        const g = natsHeaders();
        g.set('Spawnpoint-Body-Gone', '1');
        msg.respond(Empty, { headers: g });
      },
    });
    await raw.flush();
    const logs = captureLogs();
    try {
      const reply = await raw.request(subject('orphan'), Empty, { headers: h, timeout: 3000 });
      expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ ok: false, error: { status: 503, error: 'Service unavailable' } });
      expect(ran).toBe(false);
      expect(logs.messages().some((m) => /not handled: body by reference: the sender no longer holds it/.test(m))).toBe(true);
    } finally {
      logs.restore();
      outbox.unsubscribe();
    }
  });

  it('forgets a reply body once pulled, and a request body once answered', async () => {
    await b.handle(subject('held'), (p: string) => p);
    const before = [(a as unknown as { outbox: { held: number } }).outbox.held, (b as unknown as { outbox: { held: number } }).outbox.held];
    await a.request(subject('held'), blob(2 * MiB));
    expect([(a as unknown as { outbox: { held: number } }).outbox.held, (b as unknown as { outbox: { held: number } }).outbox.held]).toEqual(before);
  });

  it('broadcasts a 3 MiB message in parts to every listener, in order with the small ones around it', async () => {
    const got: Record<string, string[]> = { b: [], c: [] };
    const c = await stream.connect('large-listener');
    try {
      await b.listen(subject('news.*'), (p: { tag: string; text?: string }) => got.b.push(p.tag + (p.text ? `:${p.text.length}` : '')));
      await c.listen(subject('news.1'), (p: { tag: string; text?: string }) => got.c.push(p.tag + (p.text ? `:${p.text.length}` : '')));
      await a.broadcast(subject('news.1'), { tag: 'before' });
      await a.broadcast(subject('news.1'), { tag: 'big', text: blob(3 * MiB) });
      await a.broadcast(subject('news.1'), { tag: 'after' });
      const want = ['before', `big:${3 * MiB}`, 'after'];
      await waitFor(() => got.b.length === 3 && got.c.length === 3, 10_000, 'three broadcasts each');
      expect(got).toEqual({ b: want, c: want });
    } finally {
      await c.close();
    }
  });

  it('drops a broadcast whose parts do not all arrive (logged), and delivers the next one', async () => {
    const got: string[] = [];
    const logs = captureLogs();
    try {
      const listener = await stream.connect('lossy-listener');
      // Reassembly gives up after 10 s: a fresh bus would wait that long, so check the drop through the log
      // of a malformed part instead, and that the listener goes on.
      await listener.listen(subject('lossy'), (p: { tag: string }) => got.push(p.tag));
      const h = natsHeaders();
      h.set('Spawnpoint-Parts-Id', 'x1');
      h.set('Spawnpoint-Parts', '2');
      h.set('Spawnpoint-Parts-Size', '20');
      h.set('Spawnpoint-Parts-Offset', '15');
      raw.publish(subject('lossy'), new Uint8Array(10), { headers: h });
      await a.broadcast(subject('lossy'), { tag: 'next' });
      await waitFor(() => got.length === 1, 5000, 'the next broadcast');
      expect(got).toEqual(['next']);
      expect(logs.messages().some((m) => /broadcast on .* dropped: malformed part at 15/.test(m))).toBe(true);
      await listener.close();
    } finally {
      logs.restore();
    }
  });

  it('publishes a 3 MiB integration event by reference (object store) and a durable consumer on another connection gets it whole, once', async () => {
    const got: IntegrationEvent[] = [];
    const seenHeaders: Record<string, string>[] = [];
    await b.consume({ durable: `large_${unique}`, filters: ['lobby.*'] }, (e, ctx) => {
      got.push(e);
      seenHeaders.push(ctx.headers);
    });
    const big: IntegrationEvent = { id: randomBytes(16).toString('hex'), type: 'Huge', streamId: 'lobby-1', revision: 3, position: '9', data: { text: blob(3 * MiB) }, metadata: { projectId: 'p-1' } };
    const small: IntegrationEvent = { ...big, id: randomBytes(16).toString('hex'), type: 'Small', data: { n: 1 } };
    await a.publish(big, { 'x-trace': 't-1' });
    await a.publish(big); // a republish (the relay after a crash) is dropped as before
    await a.publish(small);
    await waitFor(() => got.length >= 2, 10_000, 'both events');
    expect(got.map((e) => e.type)).toEqual(['Huge', 'Small']);
    expect((got[0].data as { text: string }).text === (big.data as { text: string }).text).toBe(true);
    expect(got[0]).toEqual(big);
    expect(Object.keys(seenHeaders[0]).filter((k) => k.startsWith('Spawnpoint-'))).toEqual([]);
    // What the stream holds for it is small: the body is in the object store.
    const jsm = await raw.jetstreamManager();
    const stored = await jsm.streams.getMessage(stream.options.streamName!, { last_by_subj: `${stream.options.eventSubjectPrefix}.lobby.Huge` });
    expect(stored.data.length).toBe(0);
    expect(stored.header.get('Spawnpoint-Body-Object')).toBe(big.id);
  });
});
