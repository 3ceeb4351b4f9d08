// Idempotency-Key records on the real PostgreSQL (read-models migration 0008): one claim per key across
// "replicas" (two pools), answers replayed and sealed, another request refused, expiry and abandoned
// claims taken over, expired rows swept.
import { Pool } from 'pg';
import { migrateReadModels } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { IdempotencyStore, KeyRef } from './idempotency-store';

describe('IdempotencyStore (PostgreSQL)', () => {
  let db: TestDatabase;
  let pools: Pool[];
  let a: IdempotencyStore;
  let b: IdempotencyStore;
  const ref = (key: string, fingerprint = 'f1', scope = 'project:p1'): KeyRef => ({ scope, key, fingerprint });

  beforeAll(async () => {
    db = await createTestDatabase('idem');
    await migrateReadModels(db.url);
    pools = [new Pool({ connectionString: db.url, max: 10 }), new Pool({ connectionString: db.url, max: 10 })];
    // An idle connection ended by the server (a CI run once saw three terminated by an administrator
    // command mid-suite) is dropped by the pool; without a listener its error would fail the suite.
    for (const p of pools) p.on('error', () => undefined);
    a = new IdempotencyStore(pools[0]);
    b = new IdempotencyStore(pools[1], 200);
  });
  afterAll(async () => {
    await Promise.all((pools ?? []).map((p) => p.end()));
    await db?.drop();
  });

  it('lets exactly one of many concurrent requests of a key claim it, on any replica', async () => {
    const replicas = [a, new IdempotencyStore(pools[1])];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2].claim(ref('k-race'))));
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_progress')).toHaveLength(19);
  });

  it('replays the stored answer to the same request, refuses another request of the key', async () => {
    expect(await a.claim(ref('k-done'))).toEqual({ kind: 'claimed' });
    await a.complete(ref('k-done'), 201, { instance_id: 's1', ports: [1, 2] });
    expect(await b.claim(ref('k-done'))).toEqual({ kind: 'done', status: 201, body: { instance_id: 's1', ports: [1, 2] } });
    expect(await b.claim(ref('k-done', 'f2'))).toEqual({ kind: 'other_request' });
    // Keys are per scope: another project's same key is its own.
    expect(await b.claim(ref('k-done', 'f1', 'project:p2'))).toEqual({ kind: 'claimed' });
  });

  it('keeps neither the key nor the answer readable in the table', async () => {
    await a.claim(ref('secret-key'));
    await a.complete(ref('secret-key'), 201, { server_key: 'pf_supersecret' });
    const { rows } = await pools[0].query('SELECT scope, key, body FROM idempotency_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain('secret-key');
    expect(dump).not.toContain('pf_supersecret');
    expect(dump).not.toContain('project:p1');
  });

  it('a released claim (5xx) runs again; an abandoned one is taken over after its lease', async () => {
    await a.claim(ref('k-fail'));
    await a.release(ref('k-fail'));
    expect(await a.claim(ref('k-fail'))).toEqual({ kind: 'claimed' });
    // b's lease is 200 ms: its claim, abandoned, is taken over by the same request once it has passed.
    expect(await b.claim(ref('k-lease'))).toEqual({ kind: 'claimed' });
    expect(await b.claim(ref('k-lease'))).toEqual({ kind: 'in_progress' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await b.claim(ref('k-lease', 'other'))).toEqual({ kind: 'other_request' });
    expect(await b.claim(ref('k-lease'))).toEqual({ kind: 'claimed' });
  });

  it('an expired key is a new key, and the sweep deletes expired rows', async () => {
    await a.claim(ref('k-old'));
    await a.complete(ref('k-old'), 200, { ok: true });
    await a.claim(ref('k-old2'));
    await pools[0].query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second'`);
    expect(await a.claim(ref('k-old', 'different body'))).toEqual({ kind: 'claimed' });
    expect(await a.sweep()).toBeGreaterThanOrEqual(1);
    const { rows } = await pools[0].query('SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at < now()');
    expect(rows[0].n).toBe(0);
  });
});
