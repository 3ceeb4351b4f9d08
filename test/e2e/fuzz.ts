// The fuzz suite (issue 11): every operation of the OpenAPI document the gateway serves, and the legacy
// lobby routes, get wrong types, huge and deep values, NUL and lone surrogates in every string position,
// bad ids, bad content types, unknown fields, empty and invalid JSON, and malformed HTTP. Deterministic
// (seeded PRNG; FUZZ_SEED replays another run). Asserted: no 5xx, every error in the spec's body, the
// expected status where a case is certain, and nothing created or changed by a request with invalid input.
import { casesFor, Fixtures } from '../support/fuzz/cases';
import { LEGACY_OPERATIONS, Operation, operationsOf } from '../support/fuzz/operations';
import { Prng } from '../support/fuzz/prng';
import { judgeRaw, rawCases, rawRequest } from '../support/fuzz/raw-http';
import { randomCasesFor } from '../support/fuzz/random-cases';
import { runFuzz } from '../support/fuzz/run';
import { client } from '../support/http';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

type Api = ReturnType<typeof client>;
const SEED = Number(process.env.FUZZ_SEED ?? 11);
const HOST = 'fuzz-host';
const CONFIG = 'default';
/** Random cases per operation, beside the systematic ones (FUZZ_RANDOM for a longer exploration). */
const RANDOM_PER_OP = Number(process.env.FUZZ_RANDOM ?? 100);

/** Everything the fuzzer could have created or changed, as seen through the API. */
async function snapshot(server: Api, legacy: Api, ids: { serverId: string; lobbyId: string }) {
  const servers: string[] = (await everyServer(server)).map((s: { instance_id: string }) => s.instance_id);
  const builds: { build_id: string; status: string }[] = [];
  for (let offset = 0, more = true; more; ) {
    const page = await server.get(`/v3/builds?limit=100&offset=${offset}`);
    expect(page.status).toBe(200);
    builds.push(...page.body.builds);
    offset += page.body.builds.length;
    more = page.body.has_more;
  }
  const lobbies = await legacy.get(`/lobbies?name=${CONFIG}`);
  const target = (await server.get(`/v3/servers/${ids.serverId}`)).body;
  const lobby = (await server.get(`/v3/lobbies/${CONFIG}/${ids.lobbyId}`)).body;
  const settings = (await server.get('/v3/projects/settings')).body;
  return {
    servers: servers.sort(),
    builds: builds.map((b) => `${b.build_id}:${b.status}`).sort(),
    lobbies: lobbies.body.map((l: { id: string }) => l.id).sort(),
    target: { name: target.name, custom_data: target.custom_data, match_id: target.match_id, ttl: target.ttl, startup_args: target.startup_args, stopped: target.status === 'stopped' },
    lobby: { name: lobby.name, maxPlayers: lobby.maxPlayers, settings: lobby.settings, players: lobby.players, host: lobby.host, status: lobby.status },
    settings,
  };
}

export function describeFuzz(mode: string, start: () => Promise<Platform>): void {
  describe(`fuzz (${mode})`, () => {
    jest.setTimeout(300_000);
    let p: Platform;
    let server: Api;
    let legacy: Api;
    let ids: { serverId: string; lobbyId: string; buildId: string; projectId: string };

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      legacy = client(p.legacyUrl, p.serverKey);
      await uploadSample(server);
      const started = await server.post('/v3/servers/start', { name: 'fuzz-target', region: 'eu-west', custom_data: { keep: true } });
      expect(started.status).toBe(201);
      const lobby = await server.post(`/v3/lobbies/${CONFIG}`, { name: 'fuzz lobby', maxPlayers: 4, settings: { map: 'a' } }, { 'x-player-id': HOST });
      expect(lobby.status).toBe(201);
      const builds = await server.get('/v3/builds');
      const other = await client(p.baseUrl).post('/admin/projects', { name: 'fuzz-other' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(other.status).toBe(201);
      ids = { serverId: started.body.instance_id, lobbyId: lobby.body.id, buildId: builds.body.builds[0].build_id, projectId: other.body.project_id };
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('answers every fuzzed request of every route without a 5xx, in the Error body, changing nothing', async () => {
      const fixtures: Fixtures = {
        apiKey: p.serverKey, adminToken: ADMIN_TOKEN, playerId: HOST,
        valueOf(op: Operation, param) {
          if (param.in === 'path') {
            if (param.name === 'instance_id') return ids.serverId;
            if (param.name === 'config') return CONFIG;
            if (param.name === 'token') return 'no-such-upload-token';
            if (param.name === 'code') return 'NOCODE1';
            if (param.name === 'playerId') return HOST;
            if (param.name === 'id') {
              if (op.path.includes('/builds/')) return ids.buildId;
              if (op.path.includes('/admin/projects/')) return ids.projectId;
              return ids.lobbyId;
            }
          }
          if (param.in === 'query' && op.listener === 'legacy') {
            // The default configuration has no matchmaking modes: a well-formed matchmaker request is 404 and changes nothing.
            return param.name === 'name' || param.name === 'matchmaker_name' ? CONFIG : param.name === 'requesterId' ? HOST : undefined;
          }
          if (param.in === 'query' && op.path.endsWith('/upload-url') && param.name === 'name') return 'fuzzbuild';
          return undefined;
        },
      };
      const doc = await server.get('/openapi.json');
      expect(doc.status).toBe(200);
      const operations = [...operationsOf(doc.body), ...LEGACY_OPERATIONS];
      const rng = new Prng(SEED);
      const cases = operations.flatMap((op) => [...casesFor(op, fixtures, rng), ...(op.auth === 'serverToken' ? [] : randomCasesFor(op, { ...fixtures, otherKey: p.clientKey }, rng, RANDOM_PER_OP))]);
      // Generating the cases blocks the event loop for a while (long on a loaded machine): let the sockets the
      // server closed meanwhile (keep-alive timeout) be seen as closed before the next request would reuse one.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = await snapshot(server, legacy, ids);

      const started = Date.now();
      const origin = p.baseUrl.replace(/\/api$/, '');
      const report = await runFuzz(cases, { api: origin, legacy: p.legacyUrl });
      const raw: string[] = [];
      let rawSent = 0;
      for (const [port, path, badParam] of [
        [Number(new URL(origin).port), '/api/v3/servers', 'GET /api/v3/servers/%E0%A4%A'],
        [Number(new URL(p.legacyUrl).port), `/lobbies?name=${CONFIG}`, 'PUT /lobbies/%E0%A4%A'],
      ] as const) {
        for (const c of rawCases(path, badParam)) {
          rawSent++;
          raw.push(...judgeRaw(c, await rawRequest(port, c.data)));
        }
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`fuzz (${mode}, seed ${SEED}): ${operations.length} operations, ${report.sent} requests + ${rawSent} raw in ${seconds} s; `
        + `5xx: ${report.serverErrors}; by status ${JSON.stringify(report.byStatus)}; problems: ${report.problems.length + raw.length}`);
      // A health check that found a dependency slower than its deadline answers 503 by contract: shown, not failed.
      if (report.healthUnavailable.length) console.log(`health answered 503 (a dependency past its deadline):\n${report.healthUnavailable.slice(0, 5).join('\n')}`);

      expect(report.sent).toBe(cases.length);
      // The problems first: each 5xx is one of them, named with its route, case and body.
      expect([...report.problems, ...raw].slice(0, 40)).toEqual([]);
      expect(report.serverErrors).toBe(0);
      // Nothing half-created, nothing changed: the same servers, builds, lobbies, target server, lobby and settings.
      expect(await snapshot(server, legacy, ids)).toEqual(before);
      // Still serving.
      expect((await server.get(`/v3/servers/${ids.serverId}`)).status).toBe(200);
      expect((await server.get('/health')).status).toBe(200);
    });
  });
}
