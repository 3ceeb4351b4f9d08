// Where the lines go: stdout, written in batches. pino's default (sonic-boom, asynchronous) costs one trip
// through libuv's thread pool per line, ~30 µs of CPU at a gateway's request rate, and a synchronous
// write per line ~7 µs (measured: bench/README.md "Access log cost"). Lines are gathered and written
// together: once 16 KB wait, 50 ms after the first, at once for a warning or worse (with the lines before
// it), and at exit. A kill -9 can lose the last 50 ms of info lines, never an error already logged.
import { writeSync } from 'node:fs';

// pino tells a stream with this symbol the level of each line before writing it (stream.lastLevel).
const NEEDS_METADATA = Symbol.for('pino.metadata');
const WARN = 40;

export interface BatchedWriterOptions {
  maxBytes?: number;
  maxDelayMs?: number;
}

export class BatchedWriter {
  readonly [NEEDS_METADATA] = true;
  /** Set by pino before each write. */
  lastLevel = 0;
  private pending: string[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private broken = false;
  private readonly maxBytes: number;
  private readonly maxDelayMs: number;

  constructor(private readonly fd: number, options: BatchedWriterOptions = {}) {
    this.maxBytes = options.maxBytes ?? 16 * 1024;
    this.maxDelayMs = options.maxDelayMs ?? 50;
  }

  write(line: string): boolean {
    this.pending.push(line);
    this.size += line.length;
    if (this.lastLevel >= WARN || this.size >= this.maxBytes) this.flushSync();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flushSync(), this.maxDelayMs);
      this.timer.unref();
    }
    return true;
  }

  flushSync(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
    this.size = 0;
    if (!this.broken) this.writeAll(data);
  }

  private writeAll(data: Buffer): void {
    let offset = 0;
    let waits = 0;
    while (offset < data.length) {
      try {
        offset += writeSync(this.fd, data, offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // A non-blocking pipe that is full: wait a moment for its reader (up to a second, then drop the rest).
        if (code === 'EAGAIN' && waits++ < 100) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        // Nobody reads our stdout any more (EPIPE) or it is gone: logging must not take the process down.
        if (code === 'EPIPE' || code === 'EBADF') this.broken = true;
        return;
      }
    }
  }
}

let stdout: BatchedWriter | null = null;

/** The process's one writer to stdout (flushed at exit), shared by every root logger it configures. */
export function stdoutWriter(): BatchedWriter {
  if (!stdout) {
    const writer = new BatchedWriter(1);
    process.on('exit', () => writer.flushSync());
    stdout = writer;
  }
  return stdout;
}

/** Writes what waits now (before the process kills itself, say). */
export function flushLogs(): void {
  stdout?.flushSync();
}
