// Host ports reserved per machine, not per process: two servers replicas with the process runtime on one
// host (each with its own data dir) draw from the same range, and a port one of them picked but whose game
// has not bound it yet looks free to the other (the chaos suite saw EADDRINUSE). A reservation is a file
// per port in a directory every replica on the host shares, created exclusively and naming the process
// that holds it; a holder that has ended (kill -9) leaves files anyone may take over. A note appears whole
// (written aside, then hard-linked into place, which fails if the port's note exists): a note created empty
// and written after would look unreadable, hence stale, to another replica reading it in between, which
// then removed it and took the port too (the chaos suite saw a match's game exit on EADDRINUSE).
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identify, type ProcessIdentity } from './proc-identity';

interface Holder extends ProcessIdentity { serverId: string }

export const DEFAULT_PORT_LOCK_DIR = path.join(os.tmpdir(), 'spawnpoint-ports');

export class HostPortLocks {
  private readonly me: ProcessIdentity;
  private seq = 0;

  constructor(readonly dir: string = DEFAULT_PORT_LOCK_DIR) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.me = identify(process.pid) ?? { pid: process.pid, startTime: 0 };
  }

  /** Reserve `port` for `serverId` unless a live process (another replica, or this one for another server) holds it. */
  take(port: number, serverId: string): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.create(port, serverId)) return true;
      const holder = this.holder(port);
      if (holder && this.isMe(holder)) return holder.serverId === serverId;
      if (holder && this.alive(holder)) return false;
      this.removeIfStill(port, holder); // its holder ended (or the note is unreadable): free
    }
    return false;
  }

  /** The port's note, whole, unless one exists. */
  private create(port: number, serverId: string): boolean {
    const aside = path.join(this.dir, `.${port}.${this.me.pid}.${++this.seq}`);
    writeFileSync(aside, JSON.stringify({ ...this.me, serverId }), { mode: 0o600 });
    try {
      linkSync(aside, this.file(port));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return false;
    } finally {
      unlinkSync(aside);
    }
  }

  /** A port a game already holds (adopted after a restart): ours, whoever noted it before. */
  force(port: number, serverId: string): void {
    writeFileSync(this.file(port), JSON.stringify({ ...this.me, serverId }), { mode: 0o600 });
  }

  /** Give the port back, if this process holds it. */
  release(port: number): void {
    const holder = this.holder(port);
    if (holder && this.isMe(holder)) this.remove(port);
  }

  private holder(port: number): Holder | null {
    try {
      const h = JSON.parse(readFileSync(this.file(port), 'utf8')) as Holder;
      return typeof h.pid === 'number' && typeof h.startTime === 'number' ? h : null;
    } catch {
      return null;
    }
  }

  private isMe(h: ProcessIdentity): boolean {
    return h.pid === this.me.pid && h.startTime === this.me.startTime;
  }

  private alive(h: ProcessIdentity): boolean {
    const now = identify(h.pid);
    return now !== null && now.startTime === h.startTime;
  }

  /** Remove a stale note only if it is still the one judged stale (another replica may have taken the port meanwhile). */
  private removeIfStill(port: number, stale: Holder | null): void {
    const now = this.holder(port);
    if (JSON.stringify(now) === JSON.stringify(stale)) this.remove(port);
  }

  private remove(port: number): void {
    try {
      unlinkSync(this.file(port));
    } catch {
      // gone already
    }
  }

  private file(port: number): string {
    return path.join(this.dir, String(port));
  }
}
