// PlanAdmission on the real PostgreSQL: starts of one capped project never overlap, whether they come to
// one servers replica (its lane) or to two (the advisory lock); other projects do not wait.
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { PlanAdmission } from './plan-admission';

jest.setTimeout(30_000);

describe('PlanAdmission', () => {
  let db: TestDatabase;
  let replicas: PlanAdmission[];

  beforeAll(async () => { db = await createTestDatabase('admission'); });
  beforeEach(() => { replicas = [new PlanAdmission(db.url), new PlanAdmission(db.url)]; });
  afterEach(() => Promise.all(replicas.map((r) => r.close())));
  afterAll(() => db.drop());

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('runs the starts of one project one at a time across two replicas', async () => {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => replicas[i % 2].run('project-a', async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(20);
      order.push(i);
      inside--;
    })));
    expect(most).toBe(1);
    expect(order).toHaveLength(10);
  });

  it('does not hold up another project, and a failed start frees the project', async () => {
    let releaseA!: () => void;
    const a = replicas[0].run('project-a', () => new Promise<void>((r) => { releaseA = r; }));
    await sleep(50);
    const started = Date.now();
    await replicas[1].run('project-b', async () => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
    releaseA();
    await a;
    await expect(replicas[1].run('project-a', async () => { throw new Error('refused'); })).rejects.toThrow('refused');
    await expect(replicas[0].run('project-a', async () => 'next')).resolves.toBe('next');
  });
});
