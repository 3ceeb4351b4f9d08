// The lobby event stream in a real browser's native EventSource (Debian Chromium, headless, driven by
// playwright-core): the page is served from another origin than the gateway, so the query-parameter
// credentials (an EventSource cannot set headers) and `Access-Control-Allow-Origin: *` are what make it work.
// Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it). Under CI it always runs.
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { client } from '../support/http';
import { Platform, startStandalone } from '../support/processes';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/** What the page records: every event the EventSource dispatches, and its open/error transitions. */
interface Received { type: string; lastEventId: string; data: any }
interface PageState { received: Received[]; opens: number; errors: { readyState: number }[] }

// One plain page; the test calls window.listen(url) once it knows the gateway's address.
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>lobby events</title></head><body>
<script>
  window.received = [];
  window.opens = 0;
  window.errors = [];
  window.listen = (url) => {
    const source = new EventSource(url);
    window.source = source;
    source.onopen = () => { window.opens++; };
    source.onerror = () => { window.errors.push({ readyState: source.readyState }); };
    for (const type of ['connected', 'lobby_updated', 'lobby_deleted', 'queue_stats', 'match_found', 'ping']) {
      source.addEventListener(type, (e) => {
        window.received.push({ type: e.type, lastEventId: e.lastEventId, data: JSON.parse(e.data) });
        // The stream ends after lobby_deleted; don't let the browser reconnect for ever.
        if (type === 'lobby_deleted') source.close();
      });
    }
  };
</script>
</body></html>`;

function servePage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        close: () => new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

const haveChromium = existsSync(CHROMIUM);
const onCi = !!process.env.CI && process.env.CI !== 'false';
const ids = (lobby: { players: { id: string }[] }) => lobby.players.map((p) => p.id);

if (!haveChromium && !onCi) {
  console.warn(`Skipping test/e2e/browser-events.e2e.spec.ts: ${CHROMIUM} is missing (apt-get install chromium). Under CI=true it runs, never skips.`);
  describe.skip(`lobby events in a browser EventSource: SKIPPED, ${CHROMIUM} is missing (apt-get install chromium; under CI=true this suite never skips)`, () => {
    it('needs Chromium', () => undefined);
  });
} else {
  describe('lobby events in a browser EventSource (headless Chromium, another origin)', () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let page: { url: string; close(): Promise<void> };
    let browser: Browser | undefined;
    let tab: Page;

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`${CHROMIUM} is missing: under CI this suite must run (.ci/run installs Debian's chromium package)`);
      // A short ping interval so the page sees a `ping` too.
      [p, page] = await Promise.all([startStandalone({ portRange: '25000-25099', env: { SPAWNPOINT_LOBBY_PING_MS: '1000' } }), servePage()]);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      tab = await browser.newPage();
      await tab.goto(page.url);
    });
    afterAll(async () => {
      await browser?.close();
      await page?.close();
      await p?.stop();
    });

    it('receives connected, lobby_updated, ping and lobby_deleted, with `<lobbyId>:<revision>` ids', async () => {
      const api = client(p.baseUrl, p.clientKey);
      const server = client(p.baseUrl, p.serverKey);
      const created = await api.post('/v3/lobbies/default', { name: 'browser', state: { ready: false } }, { 'x-player-id': 'alice' });
      expect(created.status).toBe(201);
      const lobbyId: string = created.body.id;
      expect(new URL(page.url).origin).not.toBe(new URL(p.baseUrl).origin);

      const query = new URLSearchParams({ api_key: p.clientKey, player_id: 'alice' });
      const streamResponse = tab.waitForResponse((r) => r.url().includes('/v3/lobbies/default/me/events'), { timeout: 15_000 });
      await tab.evaluate((url) => (globalThis as any).listen(url), `${p.baseUrl}/v3/lobbies/default/me/events?${query}`);
      // A cross-origin request (the browser sent Origin), allowed by the response's CORS header.
      const response = await streamResponse;
      expect((await response.request().allHeaders()).origin).toBe(new URL(page.url).origin);
      expect(response.status()).toBe(200);
      expect(response.headers()).toMatchObject({ 'access-control-allow-origin': '*', 'content-type': 'text/event-stream; charset=utf-8' });
      const state = () => tab.evaluate(() => ({ received: (globalThis as any).received, opens: (globalThis as any).opens, errors: (globalThis as any).errors }) as PageState);
      const waitFor = async (what: string, ok: string) => {
        try {
          await tab.waitForFunction(ok, undefined, { timeout: 15_000, polling: 50 });
        } catch (e) {
          throw new Error(`the page did not get ${what}: ${(e as Error).message}\npage state: ${JSON.stringify(await state())}`);
        }
      };

      await waitFor('connected', `window.received.some((e) => e.type === 'connected')`);
      let got = await state();
      expect(got.opens).toBe(1);
      expect(got.errors).toEqual([]);
      const connected = got.received[0];
      expect(connected.type).toBe('connected');
      expect(connected.data).toMatchObject({ id: lobbyId, host: 'alice', currentPlayers: 1 });
      expect(connected.data.players).toEqual([{ id: 'alice', state: { ready: false }, isHost: true }]);
      expect(connected.lastEventId).toMatch(new RegExp(`^${lobbyId}:\\d+$`));
      const revisionOf = (e: Received) => Number(e.lastEventId.split(':')[1]);
      const connectedRevision = revisionOf(connected);

      // bob joins, then changes his state: two lobby_updated events, newer revisions each time
      expect((await api.post('/v3/lobbies/default/join', { lobbyId, state: { team: 'blue' } }, { 'x-player-id': 'bob' })).status).toBe(200);
      await waitFor('the join', `window.received.some((e) => e.type === 'lobby_updated' && e.data.players.length === 2)`);
      expect((await api.patch('/v3/lobbies/default/me', { state: { ready: true } }, { 'x-player-id': 'bob' })).status).toBe(200);
      await waitFor('the state change', `window.received.some((e) => e.type === 'lobby_updated' && e.data.players.some((pl) => pl.id === 'bob' && pl.state.ready === true))`);
      await waitFor('a ping', `window.received.some((e) => e.type === 'ping')`);

      got = await state();
      const updates = got.received.filter((e) => e.type === 'lobby_updated');
      expect(updates).toHaveLength(2);
      expect(ids(updates[0].data)).toEqual(['alice', 'bob']);
      expect(updates[0].data).toMatchObject({ id: lobbyId, host: 'alice', currentPlayers: 2 });
      expect(updates[0].data.players[1]).toEqual({ id: 'bob', state: { team: 'blue' }, isHost: false });
      expect(updates[1].data.players[1]).toEqual({ id: 'bob', state: { team: 'blue', ready: true }, isHost: false });
      for (const e of got.received) expect(e.lastEventId).toMatch(new RegExp(`^${lobbyId}:\\d+$`));
      expect(revisionOf(updates[0])).toBeGreaterThan(connectedRevision);
      expect(revisionOf(updates[1])).toBeGreaterThan(revisionOf(updates[0]));
      // a ping carries the stream's current id (so a reconnect resumes from there)
      const ping = got.received.find((e) => e.type === 'ping')!;
      expect(ping.data).toEqual({});

      // the admin deletes the lobby: lobby_deleted, then the server ends the stream
      expect((await server.delete(`/v3/lobbies/default/${lobbyId}`)).body).toEqual({ status: 'lobby_deleted', id: lobbyId });
      await waitFor('lobby_deleted', `window.received.some((e) => e.type === 'lobby_deleted')`);
      got = await state();
      const deleted = got.received.filter((e) => e.type === 'lobby_deleted');
      expect(deleted).toHaveLength(1);
      expect(deleted[0].data).toEqual({ id: lobbyId, reason: 'admin' });
      expect(revisionOf(deleted[0])).toBeGreaterThan(revisionOf(updates[1]));
      expect(got.received.at(-1)).toEqual(deleted[0]);
      expect(got.errors).toEqual([]);
    });
  });
}
