import { StringDecoder } from 'node:string_decoder';

/** Cuts a byte stream into lines; a chunk may end mid-line or mid-character. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** @param maxLineLength longer lines are cut into pieces, so a game printing without newlines cannot grow memory */
  constructor(private readonly maxLineLength = 16 * 1024) {}

  push(chunk: Buffer): string[] {
    return this.take(this.pending + this.decoder.write(chunk));
  }

  /** The unterminated rest, once the stream has ended. */
  end(): string[] {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest === '' ? [] : this.cut(stripCr(rest));
  }

  private take(text: string): string[] {
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    const lines = parts.flatMap((line) => this.cut(stripCr(line)));
    if (this.pending.length >= this.maxLineLength) {
      const whole = this.pending.length - (this.pending.length % this.maxLineLength);
      lines.push(...this.cut(this.pending.slice(0, whole)));
      this.pending = this.pending.slice(whole);
    }
    return lines;
  }

  private cut(line: string): string[] {
    if (line.length <= this.maxLineLength) return [line];
    const pieces: string[] = [];
    for (let i = 0; i < line.length; i += this.maxLineLength) pieces.push(line.slice(i, i + this.maxLineLength));
    return pieces;
  }
}

const stripCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
