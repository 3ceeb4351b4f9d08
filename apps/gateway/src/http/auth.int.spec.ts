// The gateway's key cache on a real NATS (ADR-0020): two gateways' caches drop a project's principals on
// the projects service's `projects.changed` broadcast, only that project's; and a reconnect to NATS drops
// everything (a broadcast sent while the connection was away is lost). A private NATS is stopped and
// started again for the latter.
import { NatsBus } from '@spawnpoint/messaging';
import { Principal, SUBJECTS } from '@spawnpoint/proto';
import { serve, sha256 } from '@spawnpoint/platform';
import { PlayerIdentity } from '../players';
import { KeyAuthenticator } from './auth';
import { OwnNats, startOwnNats } from '../../../../test/support/own-services';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyAuthenticator: project changes and reconnects', () => {
  let nats: OwnNats;
  let projects: NatsBus;
  const gateways: { bus: NatsBus; keys: KeyAuthenticator }[] = [];
  /** What the "projects service" answers now, per key hash; and how often it was asked. */
  const principals = new Map<string, Principal>();
  let asked = 0;
  const principal = (projectId: string, control: boolean): Principal => ({
    projectId, kind: 'client', plan: 'pro', clientKeyServerControl: control,
    rateLimits: { read_per_second: 10, write_per_second: 10, player_per_second: 10 },
  } as Principal);

  beforeAll(async () => {
    nats = await startOwnNats();
    projects = await NatsBus.connect({ servers: nats.url, name: 'projects' });
    await serve(projects, {
      [SUBJECTS.projects.authenticate]: ({ keyHash }: { keyHash: string }) => { asked++; return principals.get(keyHash) ?? null; },
      [SUBJECTS.projects.authConfig]: () => ({ provider: 'none' }),
    });
    for (const name of ['gateway-a', 'gateway-b']) {
      const bus = await NatsBus.connect({ servers: nats.url, name });
      const keys = new KeyAuthenticator(bus, new PlayerIdentity(bus));
      await keys.onModuleInit();
      gateways.push({ bus, keys });
    }
  });
  afterAll(async () => {
    for (const g of gateways) await g.keys.onModuleDestroy();
    await Promise.all([projects, ...gateways.map((g) => g.bus)].map((b) => b?.close().catch(() => undefined)));
    await nats?.remove();
  });

  const hashOf = (apiKey: string) => sha256(apiKey);

  it("a projects.changed broadcast drops that project's principals on every gateway at once, and only its", async () => {
    const [a, b] = gateways;
    principals.set(hashOf('key-p1'), principal('p1', true));
    principals.set(hashOf('key-p2'), principal('p2', true));
    for (const g of gateways) {
      expect((await g.keys.principal('key-p1')).principal?.clientKeyServerControl).toBe(true);
      expect((await g.keys.principal('key-p2')).principal?.clientKeyServerControl).toBe(true);
    }
    // The store changes both projects, but only p1's change is announced.
    principals.set(hashOf('key-p1'), principal('p1', false));
    principals.set(hashOf('key-p2'), principal('p2', false));
    await projects.broadcast(SUBJECTS.projects.changed, { projectId: 'p1', what: 'settings' });
    await sleep(100);
    for (const g of [a, b]) {
      expect((await g.keys.principal('key-p1')).principal?.clientKeyServerControl).toBe(false);
      // p2 still comes from the cache (its TTL has not run out): the broadcast named p1 only.
      expect((await g.keys.principal('key-p2')).principal?.clientKeyServerControl).toBe(true);
    }
  });

  it('a broadcast that does not conform to its contract is dropped (nothing forgotten)', async () => {
    const before = asked;
    await projects.broadcast(SUBJECTS.projects.changed, { project: 'p1' });
    await sleep(100);
    await gateways[1].keys.principal('key-p1');
    expect(asked).toBe(before);
  });

  it('a reconnect to NATS drops the whole cache (broadcasts may have been missed meanwhile)', async () => {
    const b = gateways[1];
    principals.set(hashOf('key-p3'), principal('p3', true));
    expect((await b.keys.principal('key-p3')).principal?.clientKeyServerControl).toBe(true);
    const cachedAt = Date.now();
    // Changed without a broadcast reaching this gateway (as if lost while it was disconnected).
    principals.set(hashOf('key-p3'), principal('p3', false));
    expect((await b.keys.principal('key-p3')).principal?.clientKeyServerControl).toBe(true);
    await nats.stop();
    await sleep(500);
    await nats.start();
    // Once this gateway reconnected, its cache is empty: the next lookup asks again.
    const until = Date.now() + 20_000;
    let control: boolean | undefined = true;
    while (Date.now() < until) {
      control = await b.keys.principal('key-p3').then((r) => r.principal?.clientKeyServerControl, () => undefined);
      if (control === false) break;
      await sleep(200);
    }
    expect(control).toBe(false);
    // Sooner than the 5 s TTL would have let it go: the reconnect did it.
    expect(Date.now() - cachedAt).toBeLessThan(4_500);
  });
});
