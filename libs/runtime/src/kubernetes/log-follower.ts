// Follows one container log stream (`follow=true&timestamps=true`) and hands out its lines. A stream
// that ends while the game still runs (API server timeout, kubelet restart, network) is reopened from the
// last timestamp seen, skipping lines already handed out; once the game has ended, the stream is read to
// its end and the follower is done.
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

export interface LogLine {
  timestamp: Date;
  message: string;
}

export type LogOpener = (query: Record<string, string | undefined>, signal: AbortSignal) => Promise<Readable>;

export interface LogFollowerOptions {
  open: LogOpener;
  onLine(line: LogLine): void;
  /** RFC 3339: only lines from then on (a pod adopted after a restart must not repeat its old lines). */
  since?: string;
  retryMs?: number;
  /** Status codes after which there is nothing more to read (404: the pod is gone). */
  isFinal?(err: unknown): boolean;
}

const TIMESTAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z ?(.*)$/s;

export class LogFollower {
  /** Resolves once the follower has read everything or was stopped. */
  readonly done: Promise<void>;
  private readonly abort = new AbortController();
  private ending = false;
  private lastKey = '';
  /** How many lines handed out carry lastKey: a runtime stamps every line of one read alike. */
  private sameKeyCount = 0;
  private lastStamp: string | undefined;
  private wake: (() => void) | null = null;

  constructor(private readonly options: LogFollowerOptions) {
    this.lastStamp = options.since;
    this.done = this.run();
  }

  /** The container has ended: read what is left, then finish. */
  finish(): void {
    this.ending = true;
    this.wake?.();
  }

  stop(): void {
    this.abort.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      const endingBefore = this.ending;
      let clean = false;
      try {
        const stream = await this.options.open({ follow: 'true', timestamps: 'true', sinceTime: this.lastStamp }, signal);
        await this.consume(stream);
        clean = true;
      } catch (err) {
        if (signal.aborted || this.options.isFinal?.(err)) return;
      }
      // A clean end after the game ended (noticed before this pass began) means everything was read.
      if (clean && endingBefore) return;
      if (!this.ending) await this.pause(this.options.retryMs ?? 1000);
    }
  }

  private async consume(stream: Readable): Promise<void> {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    // readline waits for 'end'; a stream destroyed (by stop() or a broken connection) only closes.
    const onClose = () => lines.close();
    const onAbort = () => stream.destroy();
    stream.once('close', onClose);
    this.abort.signal.addEventListener('abort', onAbort);
    const pass = { repeats: this.sameKeyCount };
    try {
      for await (const raw of lines) this.line(raw, pass);
    } finally {
      stream.off('close', onClose);
      this.abort.signal.removeEventListener('abort', onAbort);
    }
    if (stream.errored) throw stream.errored;
    if (!stream.readableEnded) throw new Error('the log stream closed before its end');
  }

  /** `pass.repeats`: lines stamped lastKey this pass will repeat before any new one. */
  private line(raw: string, pass: { repeats: number }): void {
    const match = TIMESTAMPED.exec(raw);
    if (!match) {
      this.options.onLine({ timestamp: new Date(), message: raw });
      return;
    }
    const [, seconds, fraction = '', message] = match;
    // Nanosecond precision compared as text; a reopened stream repeats lines from its sinceTime (a whole second) on.
    const key = `${seconds}.${fraction.padEnd(9, '0')}`;
    if (key < this.lastKey) return;
    if (key === this.lastKey) {
      if (pass.repeats > 0) {
        pass.repeats--;
        return;
      }
      this.sameKeyCount++;
    } else {
      this.lastKey = key;
      this.sameKeyCount = 1;
      pass.repeats = 0;
    }
    this.lastStamp = `${seconds}${fraction ? `.${fraction}` : ''}Z`;
    this.options.onLine({ timestamp: new Date(`${seconds}.${fraction.padEnd(3, '0').slice(0, 3)}Z`), message });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
