// The hosted service's v3 lobby client, played against Spawnpoint in both modes (decisions.md "Wire
// compatibility"): public lobbies with invite codes, browse without a player, kick by DELETE
// me/players/{id}, matchmaking start refusals (400 naming the mode), decline by DELETE me/confirm-match,
// POSTs of start / end-match / confirm-match with `Content-Type: application/json` and an empty body, and
// the event stream's raw lines (`event: <name>`, `data: <json>`, every event named).
import { client, eventually } from '../support/http';
import { Platform, startDistributed, startStandalone } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
/** What the hosted service's client sends on start, end-match and confirm-match: a JSON type, no body. */
const emptyJson = (playerId: string) => ({ ...as(playerId), 'content-type': 'application/json' });
const ids = (lobby: { players: { id: string }[] }) => lobby.players.map((p) => p.id);

/** A raw event stream: the bytes as sent, and the frames (blank-line separated) read so far. */
function rawStream(url: string, headers: Record<string, string>) {
  let text = '';
  let ended = false;
  const controller = new AbortController();
  const done = (async () => {
    const res = await fetch(url, { headers, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    ended = true;
  })().catch((err: Error) => {
    if (err.name !== 'AbortError') throw err;
  });
  const frames = () => text.split('\n\n').slice(0, -1);
  return {
    get text() { return text; },
    get ended() { return ended; },
    frames,
    /** Waits for a frame of this event name; resolves its parsed data. */
    async next(event: string, after = 0, timeoutMs = 20_000): Promise<{ data: any; index: number }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const all = frames();
        const index = all.findIndex((f, i) => i >= after && f.includes(`\nevent: ${event}\n`));
        if (index >= 0) return { data: JSON.parse(all[index].split('\ndata: ')[1]), index };
        if (Date.now() > deadline) throw new Error(`no ${event} frame; got ${JSON.stringify(text.slice(-2000))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => controller.abort(),
    done,
  };
}

function describeWireLobbies(mode: string, start: () => Promise<Platform>): void {
  describe(`the hosted service's v3 lobby client (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [
        { name: 'wire', maxPlayers: 4, matchmaking: { modes: {
          confirmed: { teams: 2, playersPerTeam: 1, requireConfirmation: true, confirmationTimeout: 60 },
        } } },
        { name: 'plain' },
        { name: 'nocodes', inviteCodeConfig: null },
      ] });
      expect(settings.status).toBe(200);
      await uploadSample(server);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('public lobbies have an invite code that joins them; browse needs no player and pages by limit/offset with total and hasMore', async () => {
      const host = await api.post('/v3/lobbies/wire', { name: 'open room', region: 'ap-south' }, as('wb-host'));
      expect(host.status).toBe(201);
      expect(host.body).toMatchObject({ isPrivate: false, code: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/) });
      const joined = await api.post('/v3/lobbies/wire/join', { code: host.body.code }, as('wb-guest'));
      expect(joined.status).toBe(200);
      expect(ids(joined.body)).toEqual(['wb-host', 'wb-guest']);
      const hidden = await api.post('/v3/lobbies/wire', { region: 'ap-south', isPrivate: true }, as('wb-private'));
      expect(hidden.body.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
      expect(hidden.body.code).not.toBe(host.body.code);
      // codes off for a config: null, public or private
      expect((await api.post('/v3/lobbies/nocodes', { isPrivate: true }, as('wb-nocode'))).body).toMatchObject({ isPrivate: true, code: null });

      // no x-player-id: the private lobby is not listed, and the page says where it stands
      const page = await eventually(() => api.get('/v3/lobbies/wire?region=ap-south'), (r) => r.status === 200 && r.body.total === 1);
      expect(Object.keys(page.body).sort()).toEqual(['hasMore', 'limit', 'lobbies', 'offset', 'total']);
      expect(page.body).toMatchObject({ total: 1, limit: 50, offset: 0, hasMore: false });
      expect(page.body.lobbies.map((l: { id: string }) => l.id)).toEqual([host.body.id]);
      expect(page.body.lobbies[0].code).toBe(host.body.code);

      const newer = await api.post('/v3/lobbies/wire', { region: 'ap-south' }, as('wb-host2'));
      const first = await eventually(() => api.get('/v3/lobbies/wire?region=ap-south&limit=1&foo=bar'), (r) => r.body.total === 2);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 2, limit: 1, offset: 0, hasMore: true });
      expect(first.body.lobbies.map((l: { id: string }) => l.id)).toEqual([newer.body.id]);
      const second = await api.get('/v3/lobbies/wire?region=ap-south&limit=1&offset=1');
      expect(second.body).toMatchObject({ total: 2, limit: 1, offset: 1, hasMore: false });
      expect(second.body.lobbies.map((l: { id: string }) => l.id)).toEqual([host.body.id]);
      expect((await api.get('/v3/lobbies/wire?region=ap-south&offset=5')).body).toMatchObject({ lobbies: [], total: 2, offset: 5, hasMore: false });
      // the player header, when sent, changes nothing
      expect((await api.get('/v3/lobbies/wire?region=ap-south', as('anyone'))).body.total).toBe(2);
      for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'limit=x']) {
        const r = await api.get(`/v3/lobbies/wire?${bad}`);
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc[0]).toBe('query');
      }
    });

    it('kicks with DELETE me/players/{playerId}: the kicked stream gets lobby_updated then ends, its GET me is 404; non-host 403, unknown 404', async () => {
      const made = await api.post('/v3/lobbies/wire', {}, as('wk-host'));
      await api.post('/v3/lobbies/wire/join', { lobbyId: made.body.id }, as('wk-guest'));
      await api.post('/v3/lobbies/wire/join', { lobbyId: made.body.id }, as('wk-other'));
      const stream = lobbyEvents(p.baseUrl, p.clientKey, 'wire', 'wk-guest');
      try {
        await stream.next('connected');
        const byGuest = await api.delete('/v3/lobbies/wire/me/players/wk-other', as('wk-guest'));
        expect(byGuest.status).toBe(403);
        expect(byGuest.body).toEqual({ error: expect.any(String), status: 403 });
        expect((await api.delete('/v3/lobbies/wire/me/players/wk-nobody', as('wk-host'))).status).toBe(404);
        expect((await api.delete('/v3/lobbies/wire/me/players/bad%20id!', as('wk-host'))).status).toBe(422);
        expect(ids((await api.get('/v3/lobbies/wire/me', as('wk-host'))).body)).toEqual(['wk-host', 'wk-guest', 'wk-other']);

        const kicked = await api.delete('/v3/lobbies/wire/me/players/wk-guest', as('wk-host'));
        expect(kicked.status).toBe(200);
        expect(ids(kicked.body)).toEqual(['wk-host', 'wk-other']);
        const update = await stream.next('lobby_updated');
        expect(ids(update.data)).toEqual(['wk-host', 'wk-other']);
        await stream.ended();
        expect((await api.get('/v3/lobbies/wire/me', as('wk-guest'))).status).toBe(404);
        // the earlier route does the same
        const again = await api.post('/v3/lobbies/wire/me/kick', { playerId: 'wk-other' }, as('wk-host'));
        expect(ids(again.body)).toEqual(['wk-host']);
      } finally {
        stream.close();
      }
    });

    it('start of matchmaking: a config without modes, or an unknown mode, is 400 naming the mode; a body without mode is 422 (an empty one too)', async () => {
      await api.post('/v3/lobbies/plain', {}, as('wm-plain'));
      const none = await api.post('/v3/lobbies/plain/me/matchmaking', { mode: 'ranked' }, as('wm-plain'));
      expect(none.status).toBe(400);
      expect(none.body).toEqual({ error: expect.stringContaining("'ranked'"), status: 400 });
      await api.post('/v3/lobbies/wire', {}, as('wm-host'));
      const unknown = await api.post('/v3/lobbies/wire/me/matchmaking', { mode: 'nope' }, as('wm-host'));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain("'nope'");
      expect(unknown.body.error).toContain('confirmed');
      const missing = await api.post('/v3/lobbies/wire/me/matchmaking', {}, as('wm-host'));
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0].loc).toEqual(['body', 'mode']);
      // an empty JSON body is no body: the route answers for the missing field, never 400
      const empty = await api.post('/v3/lobbies/wire/me/matchmaking', '', emptyJson('wm-host'));
      expect(empty.status).toBe(422);
      expect(empty.body.detail[0].loc).toEqual(['body', 'mode']);
      // what is not JSON stays 400
      const junk = await api.post('/v3/lobbies/wire/me/matchmaking', '{mode', emptyJson('wm-host'));
      expect(junk.status).toBe(400);
      expect((await api.get('/v3/lobbies/wire/me', as('wm-host'))).body.status).toBe('waiting');
    });

    it('declines with DELETE me/confirm-match: the match dissolves, the decliner waits with declined, the confirmed lobby is queued again at its first queue time', async () => {
      await api.post('/v3/lobbies/wire', { region: 'eu-north' }, as('wd-1'));
      await api.post('/v3/lobbies/wire', { region: 'eu-north' }, as('wd-2'));
      expect((await api.delete('/v3/lobbies/wire/me/confirm-match', as('wd-2'))).status).toBe(409);
      const queued = await api.post('/v3/lobbies/wire/me/matchmaking', { mode: 'confirmed' }, as('wd-1'));
      expect(queued.status).toBe(200);
      expect((await api.delete('/v3/lobbies/wire/me/confirm-match', as('wd-1'))).status).toBe(409); // in_queue: nothing pending
      expect((await api.post('/v3/lobbies/wire/me/matchmaking', { mode: 'confirmed' }, as('wd-2'))).status).toBe(200);
      await eventually(() => api.get('/v3/lobbies/wire/me', as('wd-1')), (r) => r.body.status === 'match_found', 30_000, 'wd-1 match_found');
      await eventually(() => api.get('/v3/lobbies/wire/me', as('wd-2')), (r) => r.body.status === 'match_found', 30_000, 'wd-2 match_found');

      const confirmed = await api.post('/v3/lobbies/wire/me/confirm-match', '', emptyJson('wd-1'));
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.matchmaking.confirmation.confirmed).toBe(true);
      const declined = await api.delete('/v3/lobbies/wire/me/confirm-match', as('wd-2'));
      expect(declined.status).toBe(200);
      expect(declined.body).toMatchObject({ status: 'waiting', matchmaking: null, matchmakingError: 'declined' });
      const back = await eventually(() => api.get('/v3/lobbies/wire/me', as('wd-1')), (r) => r.body.status === 'in_queue', 30_000, 'wd-1 queued again');
      expect(back.body.matchmaking).toMatchObject({ mode: 'confirmed', startedAt: queued.body.matchmaking.startedAt, confirmation: null });
      expect((await api.delete('/v3/lobbies/wire/me/confirm-match', as('wd-2'))).status).toBe(409);
      expect((await api.delete('/v3/lobbies/wire/me/matchmaking', as('wd-1'))).status).toBe(200);
    });

    it('takes POST start, end-match and confirm-match with Content-Type application/json and an empty body', async () => {
      await api.post('/v3/lobbies/wire', {}, as('we-host'));
      const started = await api.post('/v3/lobbies/wire/me/start', '', emptyJson('we-host'));
      expect(started.status).toBe(200);
      expect(started.body.status).toBe('starting');
      await eventually(() => api.get('/v3/lobbies/wire/me', as('we-host')), (r) => r.body.status === 'in_game', 60_000, 'lobby in game');
      const ended = await api.post('/v3/lobbies/wire/me/end-match', '', emptyJson('we-host'));
      expect(ended.status).toBe(200);
      expect(ended.body.status).toBe('waiting');
      const nothing = await api.post('/v3/lobbies/wire/me/confirm-match', '', emptyJson('we-host'));
      expect(nothing.status).toBe(409); // no match to confirm: the state speaks, not the body
      // every route: a body-taking one answers 422 for what is missing, the legacy listener too
      expect((await api.post('/v3/lobbies/wire/join', '', emptyJson('we-joiner'))).status).toBe(422);
      const legacy = await fetch(`${p.legacyUrl}/lobbies?name=wire`, { method: 'POST', headers: { 'api-key': p.clientKey, 'content-type': 'application/json' }, body: '' });
      expect(legacy.status).toBe(422);
      expect((await legacy.json()).detail[0].loc[0]).toBe('body');
    });

    it("writes every event as 'event: <name>' and 'data: <json>' lines: connected, queue_stats, ping, match_found, lobby_updated, lobby_deleted", async () => {
      const made = await api.post('/v3/lobbies/wire', { region: 'us-west' }, as('ws-1'));
      await api.post('/v3/lobbies/wire', { region: 'us-west' }, as('ws-2'));
      const raw = rawStream(`${p.baseUrl}/v3/lobbies/wire/me/events`, { 'api-key': p.clientKey, 'x-player-id': 'ws-1' });
      try {
        const connected = await raw.next('connected');
        expect(connected.data.id).toBe(made.body.id);
        await raw.next('ping');
        expect((await api.post('/v3/lobbies/wire/me/matchmaking', { mode: 'confirmed' }, as('ws-1'))).status).toBe(200);
        const stats = await raw.next('queue_stats');
        expect(stats.data).toMatchObject({ lobbiesInQueue: expect.any(Number), playersSearching: expect.any(Number), avgWaitSeconds: expect.any(Number) });
        expect((await api.post('/v3/lobbies/wire/me/matchmaking', { mode: 'confirmed' }, as('ws-2'))).status).toBe(200);
        const found = await raw.next('match_found');
        expect(found.data).toMatchObject({ id: made.body.id, status: 'match_found' });
        const declined = await api.delete('/v3/lobbies/wire/me/confirm-match', as('ws-1'));
        expect(declined.status).toBe(200);
        const waiting = await raw.next('lobby_updated', found.index + 1);
        expect(waiting.data).toBeDefined();
        await eventually(() => api.get('/v3/lobbies/wire/me', as('ws-1')), (r) => r.body.status === 'waiting', 10_000);
        expect((await server.delete(`/v3/lobbies/wire/${made.body.id}`)).status).toBe(200);
        const deleted = await raw.next('lobby_deleted');
        expect(deleted.data).toEqual({ id: made.body.id, reason: 'admin' });
        await raw.done;
        expect(raw.ended).toBe(true);

        // every frame, byte for byte: id, event and data lines with one space after the colon, nothing else
        const frames = raw.frames();
        const names = new Set<string>();
        for (const frame of frames) {
          expect(frame).toMatch(/^id: [^\n]+\nevent: [a-z_]+\ndata: [^\n]+$/);
          const [, event, data] = frame.split('\n');
          names.add(event.slice('event: '.length));
          expect(() => JSON.parse(data.slice('data: '.length))).not.toThrow();
        }
        expect(raw.text.endsWith('\n\n')).toBe(true);
        expect([...names].sort()).toEqual(['connected', 'lobby_deleted', 'lobby_updated', 'match_found', 'ping', 'queue_stats']);
      } finally {
        raw.close();
        await api.delete('/v3/lobbies/wire/me/matchmaking', as('ws-2'));
      }
    });
  });
}

// `ping` and queue figures every second (30 s and 10 s by default), so that the raw stream sees them.
const FAST = { SPAWNPOINT_LOBBY_PING_MS: '1000', SPAWNPOINT_LOBBY_QUEUE_STATS_MS: '1000' };
describeWireLobbies('standalone', () => startStandalone({ portRange: '23000-23099', env: FAST }));
describeWireLobbies('distributed', () => startDistributed('23100-23299', FAST));
