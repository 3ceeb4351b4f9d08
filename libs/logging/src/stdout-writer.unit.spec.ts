// The batched writer on a real file descriptor: lines wait for 16 KB or 50 ms, a warning or worse goes out at
// once with the lines before it, a closed descriptor never throws; through pino, in order.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { BatchedWriter } from './stdout-writer';

describe('BatchedWriter', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-log-writer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function open(name: string): { fd: number; read(): string } {
    const file = path.join(dir, name);
    const fd = openSync(file, 'w');
    return { fd, read: () => readFileSync(file, 'utf8') };
  }

  it('holds info lines until 50 ms passed, then writes them in one go', async () => {
    const out = open('timer');
    const w = new BatchedWriter(out.fd, { maxDelayMs: 50 });
    w.lastLevel = 30;
    w.write('a\n');
    w.write('b\n');
    expect(out.read()).toBe('');
    await new Promise((r) => setTimeout(r, 120));
    expect(out.read()).toBe('a\nb\n');
    closeSync(out.fd);
  });

  it('writes once the batch reaches maxBytes, and a warning at once with the lines before it', () => {
    const out = open('size');
    const w = new BatchedWriter(out.fd, { maxBytes: 10, maxDelayMs: 60_000 });
    w.lastLevel = 30;
    w.write('12345\n');
    expect(out.read()).toBe('');
    w.write('67890\n');
    expect(out.read()).toBe('12345\n67890\n');
    w.write('info\n');
    w.lastLevel = 40;
    w.write('warn\n');
    expect(out.read()).toBe('12345\n67890\ninfo\nwarn\n');
    w.lastLevel = 30;
    w.write('left\n');
    w.flushSync();
    expect(out.read()).toBe('12345\n67890\ninfo\nwarn\nleft\n');
    closeSync(out.fd);
  });

  it('gets each line\'s level from pino, so an error is out before the call returns', () => {
    const out = open('pino');
    const w = new BatchedWriter(out.fd, { maxDelayMs: 60_000 });
    const log = pino({ base: null, timestamp: false }, w);
    log.info('first');
    expect(out.read()).toBe('');
    log.error('second');
    expect(out.read().split('\n').filter(Boolean).map((l) => JSON.parse(l).msg)).toEqual(['first', 'second']);
    closeSync(out.fd);
  });

  it('never throws at a descriptor that is gone (logging must not take the process down)', () => {
    const out = open('closed');
    closeSync(out.fd);
    const w = new BatchedWriter(out.fd);
    w.lastLevel = 50;
    expect(() => w.write('lost\n')).not.toThrow();
    expect(() => w.flushSync()).not.toThrow();
  });
});
