// The sweeper's repairs, on a real PostgreSQL read model: presence that comes back for a lobby that is not
// in the read model (a gateway still holds a stream on it) makes the sweeper ask the service to repeat the
// deletion, presence that does not come back does not; a lobby left `starting` without a server for over
// a minute (its launch was lost with a replica) is handed back.
import { DEFAULT_LOBBY_CONFIG, LobbyConfig } from '@spawnpoint/domain';
import { InProcessBus } from '@spawnpoint/messaging';
import { readModelsPool } from '@spawnpoint/read-models';
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

  it('acts on the idle lobbies and the silent members of each config in use, by that config\'s own limits, and on nothing else', async () => {
    const sql = readModelsPool(bed.models);
    const now = Date.now();
    const ago = (s: number) => new Date(now - s * 1000).toISOString();
    const configs: Record<string, LobbyConfig> = {
      'p1/short': { ...DEFAULT_LOBBY_CONFIG, name: 'short', timeout: 60, heartbeat: false },
      'p1/long': { ...DEFAULT_LOBBY_CONFIG, name: 'long', timeout: 600, heartbeat: true, heartbeatTimeout: 30 },
      'p2/short': { ...DEFAULT_LOBBY_CONFIG, name: 'short', timeout: 3600, heartbeat: false },
    };
    const insert = async (projectId: string, config: string, activity: number, seen: number[]) => {
      const id = randomUUID();
      const players = seen.map((s, i) => ({ id: `pl${i}`, lastSeenAt: ago(s) }));
      await sql.query(`INSERT INTO lobbies (id, project_id, config, status, region, is_private, player_count, max_players, state, created_at, updated_at, activity_at, seen_min_at)
        VALUES ($1, $2, $3, 'waiting', 'eu-west', false, $4, 8, $5, now(), now(), $6, $7)`,
      [id, projectId, config, players.length, JSON.stringify({ lastActivityAt: ago(activity), players }), ago(activity), seen.length ? ago(Math.max(...seen)) : null]);
      return id;
    };
    // many lobbies nobody needs to look at, in every config
    for (const key of Object.keys(configs)) {
      const [projectId, config] = key.split('/');
      await sql.query(`INSERT INTO lobbies (id, project_id, config, status, region, is_private, player_count, max_players, state, created_at, updated_at, activity_at, seen_min_at)
        SELECT gen_random_uuid(), $1, $2, 'waiting', 'eu-west', false, 1, 8, jsonb_build_object('lastActivityAt', $3::text, 'players', jsonb_build_array(jsonb_build_object('id', 'x', 'lastSeenAt', $3::text))),
          now(), now(), $3::timestamptz, $3::timestamptz FROM generate_series(1, 500)`, [projectId, config, ago(5)]);
    }
    const idleShort = await insert('p1', 'short', 120, [120]); // past 60 s
    await insert('p1', 'long', 120, [10]); // within 600 s, its member seen 10 s ago
    const silent = await insert('p1', 'long', 20, [5, 45]); // its second member silent past 30 s
    const idleLong = await insert('p1', 'long', 700, [700]);
    await insert('p2', 'short', 120, [120]); // p2's "short" allows an hour
    const deleted: string[] = [];
    const stale: [string, string[]][] = [];
    const asked: string[] = [];
    const sweeper = new LobbySweeper(target({
      lobbyConfig: async (projectId, name) => { asked.push(`${projectId}/${name}`); return configs[`${projectId}/${name}`]; },
      deleteLobby: async (_p, id) => void deleted.push(id),
      removeStale: async (_p, id, playerIds) => void stale.push([id, playerIds]),
    }), bed.models, bus, new Presence(() => now - 3_600_000), 1_000, () => now); // presence counts from the service start: an hour ago
    await sweeper.sweep(now);
    expect(asked.sort()).toEqual(Object.keys(configs).sort());
    expect(deleted.sort()).toEqual([idleShort, idleLong].sort());
    expect(stale).toEqual([[silent, ['pl1']]]);
  });
});

