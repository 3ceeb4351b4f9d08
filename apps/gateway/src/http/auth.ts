// api-key → Principal, asked of the projects service and cached briefly. Keys are hashed before they leave
// this process; the cache is keyed by the key itself (memory only) so a cached request costs no hashing.
// Every change of a project's keys, settings, plan or limits drops its entries at once on every gateway:
// the projects service broadcasts `projects.changed` after the write (ADR-0020). The TTL only bounds a
// missed broadcast, and a reconnect to the bus (broadcasts may have been lost meanwhile) drops everything.
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Bus, runWithDeadline, Unsubscribe } from '@spawnpoint/messaging';
import { BUS, sha256 } from '@spawnpoint/platform';
import { Principal, ProjectChangedBroadcast, SUBJECTS, validListener } from '@spawnpoint/proto';
import { PlayerIdentity } from '../players';

/** How long a principal is used without asking again: the bound on staleness when a broadcast is lost. */
const TTL_MS = 5_000;
/** An unknown key is asked again this soon (a key being created or rotated in). */
const UNKNOWN_TTL_MS = 1_000;

interface Entry { principal: Principal | null; keyHash: string; until: number }

@Injectable()
export class KeyAuthenticator implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, Entry>();
  /** Concurrent misses for one key share one lookup (no stampede when an entry expires under load). */
  private readonly inflight = new Map<string, Promise<Principal | null>>();
  /**
   * Bumped by every invalidation: a lookup that began before one may carry the old state, so its answer
   * serves the requests that waited for it but is not kept.
   */
  private generation = 0;
  private readonly unsubscribes: Unsubscribe[] = [];

  constructor(@Inject(BUS) private readonly bus: Bus, private readonly players: PlayerIdentity) {}

  async onModuleInit(): Promise<void> {
    const subject = SUBJECTS.projects.changed;
    this.unsubscribes.push(await this.bus.listen(subject, validListener<ProjectChangedBroadcast>(subject, (c) => this.projectChanged(c.projectId))));
    if (this.bus.onReconnect) this.unsubscribes.push(this.bus.onReconnect(() => this.forgetAll()));
  }

  async onModuleDestroy(): Promise<void> {
    for (const u of this.unsubscribes.splice(0)) await u();
  }

  async principal(apiKey: string): Promise<{ principal: Principal | null; keyHash: string }> {
    const hit = this.cache.get(apiKey);
    if (hit && hit.until > Date.now()) return { principal: hit.principal, keyHash: hit.keyHash };
    const keyHash = sha256(apiKey);
    let lookup = this.inflight.get(keyHash);
    if (!lookup) {
      const generation = this.generation;
      // Shared by every request of the key that misses meanwhile: not bound by the first one's deadline.
      const pending: Promise<Principal | null> = runWithDeadline(null, () => this.bus.request(SUBJECTS.projects.authenticate, { keyHash })).then((principal) => {
        if (generation === this.generation) {
          if (this.cache.size > 10_000) this.cache.clear();
          this.cache.set(apiKey, { principal, keyHash, until: Date.now() + (principal ? TTL_MS : UNKNOWN_TTL_MS) });
        }
        return principal;
      }).finally(() => {
        if (this.inflight.get(keyHash) === pending) this.inflight.delete(keyHash);
      });
      lookup = pending;
      this.inflight.set(keyHash, lookup);
    }
    return { principal: await lookup, keyHash };
  }

  /** A project's keys, settings, plan or limits changed: its principals (and every unknown key: one may be its new key) are asked again. */
  projectChanged(projectId: string): void {
    this.generation++;
    this.inflight.clear();
    for (const [key, entry] of this.cache) if (!entry.principal || entry.principal.projectId === projectId) this.cache.delete(key);
    this.players.forget(projectId);
  }

  /** Everything is asked again (after a write through this gateway, or a bus reconnect). */
  forgetAll(): void {
    this.generation++;
    this.inflight.clear();
    this.cache.clear();
    this.players.forgetAll();
  }

  /** Kept for the controllers that changed a project themselves (the broadcast will also come). */
  forget(): void {
    this.forgetAll();
  }
}
