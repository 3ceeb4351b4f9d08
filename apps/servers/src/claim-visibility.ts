// Read-your-writes of pool claims: a claim is answered from the claimed state at once, and reads of the
// server (or a list) wait until the read model shows the claim, without holding the claim's answer
// behind the refill's projection work.
import { Injectable } from '@nestjs/common';
import { serverStream } from '@spawnpoint/domain';
import { ServersReadModel } from './servers-read-model';

@Injectable()
export class ClaimVisibility {
  /** Claims answered before the servers read model shows them: server id → the claim's position. */
  private readonly unseen = new Map<string, bigint>();

  constructor(private readonly readModel: ServersReadModel) {}

  claimed(serverId: string, position: bigint | null): void {
    if (position === null) return;
    this.unseen.set(serverId, position);
    void this.readModel.waitFor(position, serverStream(serverId)).catch(() => undefined).finally(() => {
      if (this.unseen.get(serverId) === position) this.unseen.delete(serverId);
    });
  }

  /** No claim that a read of this server (or, without one, of a list) would wait for. */
  none(serverId?: string): boolean {
    return this.unseen.size === 0 || (serverId !== undefined && !this.unseen.has(serverId));
  }

  /** Before a read: wait for the claims it could see (one server's, or all for a list). */
  async seen(serverId?: string): Promise<void> {
    if (this.none(serverId)) return;
    const last = serverId ? this.unseen.get(serverId)! : [...this.unseen.values()].reduce((a, b) => (a > b ? a : b));
    await this.readModel.waitFor(last, serverStream(serverId ?? [...this.unseen.keys()][0]));
  }
}
