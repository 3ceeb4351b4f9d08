// api-key → Principal, asked of the projects service and cached briefly (a rotated key stops working
// within the cache TTL). Keys are hashed before they leave this process; the cache is keyed by the key
// itself (memory only) so a cached request costs no hashing.
import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS, sha256 } from '@spawnpoint/platform';
import { Principal, SUBJECTS } from '@spawnpoint/proto';

const TTL_MS = 5_000;

@Injectable()
export class KeyAuthenticator {
  private readonly cache = new Map<string, { principal: Principal | null; keyHash: string; until: number }>();
  /** Concurrent misses for one key share one lookup (no stampede when an entry expires under load). */
  private readonly inflight = new Map<string, Promise<Principal | null>>();

  constructor(@Inject(BUS) private readonly bus: Bus) {}

  async principal(apiKey: string): Promise<{ principal: Principal | null; keyHash: string }> {
    const hit = this.cache.get(apiKey);
    if (hit && hit.until > Date.now()) return { principal: hit.principal, keyHash: hit.keyHash };
    const keyHash = sha256(apiKey);
    let lookup = this.inflight.get(keyHash);
    if (!lookup) {
      lookup = this.bus.request<Principal | null>(SUBJECTS.projects.authenticate, { keyHash }).then((principal) => {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(apiKey, { principal, keyHash, until: Date.now() + (principal ? TTL_MS : 1_000) });
        return principal;
      }).finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, lookup);
    }
    return { principal: await lookup, keyHash };
  }

  forget(): void {
    this.cache.clear();
  }
}
