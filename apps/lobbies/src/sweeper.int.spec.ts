// The sweeper's repairs, on a real PostgreSQL read model: presence that comes back for a lobby that is not
// in the read model (a gateway still holds a stream on it) makes the sweeper ask the service to repeat the
// deletion, presence that does not come back does not; a lobby left `starting` without a server for over
// a minute (its launch was lost with a replica) is handed back.
import { InProcessBus } from '@spawnpoint/messaging';
import { randomUUID } from 'node:crypto';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { Presence } from './presence';
import { LobbySweeper, SweepTarget } from './sweeper';

const RETAIN_EVERY = 30; // sweeps per presence check (sweeper.ts)

/** A service that has no configs in use and acts on nothing but what a test overrides. */
const target = (over: Partial<SweepTarget>): SweepTarget => ({
  lobbyConfig: async () => { throw new Error('no configs in use'); },
  deleteLobby: async () => undefined,
  removeStale: async () => undefined,
  repeatDeletion: async () => false,
  ...over,
});

describe('LobbySweeper: lost deletions', () => {
  let bed: ProjectionTestBed;
  let bus: InProcessBus;

  beforeAll(async () => {
    bed = await createProjectionTestBed('lobbysweep');
    bus = new InProcessBus();
  });
  afterAll(async () => {
    await bus?.close();
    await bed?.close();
  });

  it('repeats the deletion of a lobby whose streams are still reported after it was dropped once, at most once per check', async () => {
    const repeated: string[] = [];
    const presence = new Presence(Date.now);
    const sweeper = new LobbySweeper(target({ repeatDeletion: async (id) => { repeated.push(id); return true; } }), bed.models, bus, presence, 1_000, Date.now);
    const check = async () => { for (let i = 0; i < RETAIN_EVERY; i++) await sweeper.sweep(); };
    const [lingering, closed] = [randomUUID(), randomUUID()];
    const seen = (lobbyId: string) => presence.record([{ projectId: 'p1', lobbyId, playerId: 'alice' }], Date.now());

    seen(lingering);
    seen(closed);
    await check();
    // first check: both dropped (not in the read model), nothing repeated yet: their streams may just have closed
    expect(repeated).toEqual([]);
    expect(presence.lobbyIds()).toEqual([]);

    seen(lingering); // a gateway still reports a stream on it
    await check();
    expect(repeated).toEqual([lingering]);

    await check(); // nothing reported since
    expect(repeated).toEqual([lingering]);
  });
});
