import type { Protocol } from '../runtime';
import type { HostPortLocks } from './host-port-locks';
import { isPortFree } from './port-probe';

/**
 * Hands out host ports from a range: never one reserved for another server, and only ones
 * free right now. Allocations run one at a time so two concurrent calls cannot pick the same port.
 */
export class PortAllocator {
  private readonly ownerOf = new Map<number, string>();
  private queue: Promise<unknown> = Promise.resolve();
  // Next-fit: a just-released port is handed out last, so stray packets for an old match
  // are unlikely to reach a new one.
  private cursor: number;

  /** `locks`: reservations shared with the other runtimes on this host (host-port-locks.ts). */
  constructor(private readonly range: [number, number], private readonly locks: HostPortLocks | null = null) {
    const [low, high] = range;
    if (!Number.isInteger(low) || !Number.isInteger(high) || low < 1 || high > 65535 || low > high) {
      throw new Error(`invalid port range ${low}-${high}`);
    }
    this.cursor = low;
  }

  /** One port per protocol given, in order; all or none are reserved. */
  allocate(serverId: string, protocols: Protocol[]): Promise<number[]> {
    const run = this.queue.then(() => this.pick(serverId, protocols));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ports a game already holds (one adopted after a restart): never handed to another server. */
  reserve(serverId: string, ports: number[]): void {
    for (const port of ports) {
      this.ownerOf.set(port, serverId);
      this.locks?.force(port, serverId);
    }
  }

  release(serverId: string): void {
    for (const [port, owner] of this.ownerOf) {
      if (owner !== serverId) continue;
      this.ownerOf.delete(port);
      this.locks?.release(port);
    }
  }

  private async pick(serverId: string, protocols: Protocol[]): Promise<number[]> {
    const picked: number[] = [];
    try {
      for (const protocol of protocols) {
        const port = await this.nextFree(protocol, serverId);
        this.ownerOf.set(port, serverId);
        picked.push(port);
      }
      return picked;
    } catch (err) {
      for (const port of picked) {
        this.ownerOf.delete(port);
        this.locks?.release(port);
      }
      throw err;
    }
  }

  private async nextFree(protocol: Protocol, serverId: string): Promise<number> {
    const [low, high] = this.range;
    const size = high - low + 1;
    for (let i = 0; i < size; i++) {
      const port = low + ((this.cursor - low + i) % size);
      if (this.ownerOf.has(port)) continue;
      // The host-wide reservation first: probing binds the port for a moment, and a port another replica
      // reserved may be about to be bound by its game (the probe made that bind fail: EADDRINUSE).
      if (this.locks && !this.locks.take(port, serverId)) continue;
      if (!(await isPortFree(port, protocol))) {
        this.locks?.release(port);
        continue;
      }
      this.cursor = port === high ? low : port + 1;
      return port;
    }
    throw new Error(`no free ${protocol} port in range ${low}-${high}`);
  }
}
