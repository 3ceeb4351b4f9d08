// The chaos suite (issue 36): distributed, two replicas of every app and two gateways, on a private
// PostgreSQL and NATS. 20 trials kill -9 a random replica under load (cold starts, pool claims, lobby
// joins, matchmaking) and start it again; then NATS restarts, PostgreSQL restarts and stops immediately,
// 3 times each, under the same load. After each (chaos.ts): no acknowledged write lost or doubled, no
// orphan or wrongly killed game, nothing stuck in a transient status, every error a 503 with Retry-After
// (or, for a killed gateway, a connection it cut). The figures are printed for the closing note.
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { client } from '../support/http';
import { OwnNats, OwnPostgres, startOwnNats, startOwnPostgres } from '../support/own-services';
import { Platform, startDistributed } from '../support/processes';
import { CHAOS_CONFIG, checkAndClean, Figures, Load, unexpectedErrors } from './chaos';
import { uploadSample } from './server-lifecycle';

jest.setTimeout(900_000);

const APPS = ['projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill'];
const KILL_TRIALS = Number(process.env.CHAOS_KILL_TRIALS ?? 20);
const OUTAGE_TRIALS = Number(process.env.CHAOS_OUTAGE_TRIALS ?? 3);
const OUTAGE_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A seeded choice, so a failing trial can be replayed (CHAOS_SEED). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('chaos: two replicas of every app; kill -9, NATS and PostgreSQL outages under load', () => {
  let pg: OwnPostgres;
  let nats: OwnNats;
  let p: Platform;
  const totals: { trial: string; figures: Figures }[] = [];
  const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
  const random = prng(seed);

  beforeAll(async () => {
    pg = await startOwnPostgres();
    nats = await startOwnNats();
    p = await startDistributed('20000-20799', { NATS_URL: nats.url }, { databaseUrl: pg.url, extraServices: APPS, gateways: 2 });
    const server = client(p.baseUrl, p.serverKey);
    await uploadSample(server);
    const set = await server.post('/v3/projects/settings', CHAOS_CONFIG);
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    // The whole platform's output, for a failed trial's post-mortem (CHAOS_LOG=<file>).
    if (process.env.CHAOS_LOG && p) writeFileSync(process.env.CHAOS_LOG, p.output());
    await p?.stop();
    await nats?.remove();
    await pg?.remove();
    console.log(`chaos (seed ${seed}): ${JSON.stringify(summary(totals))}`);
  });

  /** A lobby's events and those of the matches and servers they name, in order: why a lobby did not reach its game. */
  async function history(lobbyId: string): Promise<string[]> {
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    try {
      const own = (await db.query(`SELECT type, data FROM events WHERE stream_id = $1 ORDER BY position`, [`lobby-${lobbyId}`])).rows;
      const matches = [...new Set(own.map((e) => e.data.matchId).filter(Boolean))].map((m) => `match-${m}`);
      const ofMatches = (await db.query(`SELECT data FROM events WHERE stream_id = ANY($1)`, [matches])).rows;
      const servers = [...new Set([...own, ...ofMatches].map((e) => e.data.server?.instance_id ?? e.data.serverId).filter(Boolean))].map((id) => `server-${id}`);
      const related = (await db.query(`SELECT stream_id, type, data, created_at FROM events WHERE stream_id = ANY($1) ORDER BY position`, [[`lobby-${lobbyId}`, ...matches, ...servers]])).rows;
      const logs = (await db.query(`SELECT server_id::text AS server_id, ts, message FROM log_lines WHERE server_id::text = ANY($1) ORDER BY id DESC LIMIT 20`, [servers.map((s) => s.slice('server-'.length))])).rows.reverse();
      return [
        ...related.map((e) => `${e.created_at.toISOString()} ${e.stream_id} ${e.type} ${JSON.stringify(e.data).slice(0, 300)}`),
        ...logs.map((l) => `${l.ts.toISOString()} log of ${l.server_id}: ${l.message}`),
      ];
    } finally {
      await db.end();
    }
  }

  async function trial(name: string, fault: (load: Load) => Promise<{ connectionErrorsAllowed: boolean }>): Promise<void> {
    const began = Date.now();
    const load = new Load(p.gatewayUrls!, p.serverKey, p.clientKey, name);
    load.start(4);
    await sleep(1500);
    const faultAt = Date.now();
    const { connectionErrorsAllowed } = await fault(load);
    const faultMs = Date.now() - faultAt;
    await sleep(1500);
    await load.stop();
    totals.push({ trial: name, figures: load.figures });
    expect(unexpectedErrors(load, connectionErrorsAllowed)).toEqual([]);
    const checksAt = Date.now();
    await checkAndClean(p.baseUrl, p.serverKey, p.clientKey, p.dataDir, load, history);
    // Where a trial's time goes (the suite's length is CI's): the fault and its recovery, the checks.
    console.log(`chaos trial ${name}: ${Date.now() - began} ms (fault ${faultMs}, checks and clean ${Date.now() - checksAt}), ${load.figures.requests} requests`);
  }

  it(`kill -9 of a random replica, ${KILL_TRIALS} trials`, async () => {
    for (let i = 0; i < KILL_TRIALS; i++) {
      const apps = [...APPS, 'gateway'];
      const app = apps[Math.floor(random() * apps.length)];
      const replica = Math.floor(random() * 2);
      const victim = app === 'gateway' && replica === 1 ? 'gateway-2' : app;
      console.log(`chaos trial k${i}: kill -9 of ${victim} replica ${app === 'gateway' ? 0 : replica}`);
      await trial(`k${i}`, async () => {
        await p.killReplica!(victim, app === 'gateway' ? 0 : replica, 'SIGKILL');
        await p.relaunch(victim);
        return { connectionErrorsAllowed: app === 'gateway' };
      });
    }
  });

  // Each outage: the dependency goes away for OUTAGE_MS under load and comes back.
  const outages: [string, string, () => Promise<void>, () => Promise<void>][] = [
    ['NATS restarts', 'n', () => nats.stop('SIGTERM'), () => nats.start()],
    ['PostgreSQL restarts (fast)', 'pf', () => pg.stop('fast'), () => pg.start()],
    ['PostgreSQL stops immediately', 'pi', () => pg.stop('immediate'), () => pg.start()],
  ];
  it.each(outages)(`%s under load, ${OUTAGE_TRIALS} trials`, async (_what, tag, stop, start) => {
    for (let i = 0; i < OUTAGE_TRIALS; i++) {
      await trial(`${tag}${i}`, async () => {
        await stop();
        await sleep(OUTAGE_MS);
        await start();
        return { connectionErrorsAllowed: false };
      });
    }
  });

  it('every process is still running: none died of a dependency error', () => {
    expect(p.output()).not.toMatch(/\] (Unhandled|uncaught)|unhandled 'error' event/i);
  });
});

function summary(totals: { trial: string; figures: Figures }[]) {
  const sum = { trials: totals.length, requests: 0, starts: 0, claims: 0, joins: 0, matches: 0, errors: {} as Record<string, number> };
  for (const { figures } of totals) {
    sum.requests += figures.requests;
    sum.starts += figures.starts;
    sum.claims += figures.claims;
    sum.joins += figures.joins;
    sum.matches += figures.matches;
    for (const [k, n] of Object.entries(figures.errors)) sum.errors[k] = (sum.errors[k] ?? 0) + n;
  }
  return sum;
}
