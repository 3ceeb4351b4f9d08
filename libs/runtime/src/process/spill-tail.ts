// Reads a spill file (a game's output the spawner copied while no platform listened) as it grows.
import { closeSync, openSync, readSync } from 'node:fs';
import { LineSplitter } from './line-splitter';

const CHUNK = 64 * 1024;

export class SpillTail {
  private readonly lines = new LineSplitter();

  /** `offset`: where an earlier reader got to (the file is read again after each crash of the platform). */
  constructor(private readonly file: string, private readonly onLine: (line: string) => void, private offset = 0) {}

  /** Bytes read so far. */
  get position(): number {
    return this.offset;
  }

  /** Deliver the lines written since the last poll. A missing file is no output yet. */
  poll(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buffer = Buffer.allocUnsafe(CHUNK);
      for (;;) {
        const n = readSync(fd, buffer, 0, CHUNK, this.offset);
        if (n <= 0) break;
        this.offset += n;
        for (const line of this.lines.push(buffer.subarray(0, n))) this.onLine(line);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The game is over: the last lines, including an unterminated one. */
  end(): void {
    this.poll();
    for (const line of this.lines.end()) this.onLine(line);
  }
}
