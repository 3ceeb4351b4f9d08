// Every lobbies use case through its handler, reached over the in-process bus as the gateway reaches it,
// on the PostgreSQL event store and read models. A lobby needs a project (projects service); a start asks
// the servers service (which asks builds). The full start → in_game → end-match cycle with a real game
// server is covered by test/e2e/lobbies.ts.
import type { LobbyView } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { BuildsModule } from '@spawnpoint/builds';
import { ProjectsModule } from '@spawnpoint/projects';
import { ServersModule } from '@spawnpoint/servers';
import { CreatedProject, DeletedLobby, LeftLobby, LobbyPage, LobbyUpdate, OpenedLobbyStream, SUBJECTS } from '@spawnpoint/proto';
import { randomUUID } from 'node:crypto';
import { ServiceBed, startServiceBed } from '../../../test/support/service-bed';
import { LobbiesModule } from './lobbies.module';

const L = SUBJECTS.lobbies;

describe('lobbies handlers (in-process bus, PostgreSQL)', () => {
  let bed: ServiceBed;
  let projectId: string;
  beforeAll(async () => {
    bed = await startServiceBed('lobh', [ProjectsModule, BuildsModule, ServersModule, LobbiesModule]);
    projectId = (await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'lobbies', plan: 'free' })).project_id;
  });
  afterAll(() => bed?.close());

  const as = (playerId: string, more: Record<string, unknown> = {}) => ({ projectId, config: 'default', playerId, ...more });
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: RemoteError) => e);
  const create = (host: string, body: Record<string, unknown> = {}, commandId?: string) =>
    bed.request<LobbyView>(L.create, as(host, { body }), { commandId });
  const join = (playerId: string, lobby: { lobbyId?: string; code?: string }, commandId?: string) =>
    bed.request<LobbyView>(L.join, as(playerId, lobby), { commandId });
  const mine = (playerId: string) => bed.request<LobbyView>(L.getMine, as(playerId));
  const players = (l: LobbyView) => l.players.map((p) => p.id);
  /** A lobby of `host` with these members joined. */
  const lobbyOf = async (host: string, ...members: string[]) => {
    const made = await create(host);
    for (const m of members) await join(m, { lobbyId: made.id });
    return made.id;
  };

  it('CreateLobby: the caller hosts it; re-sent with its command id it answers the same lobby; oversize state is 413', async () => {
    const commandId = randomUUID();
    const made = await create('cr-host', { name: 'room', maxPlayers: 4, isPrivate: true, state: { deck: 'red' } }, commandId);
    expect(made).toMatchObject({ host: 'cr-host', name: 'room', maxPlayers: 4, status: 'waiting', isPrivate: true, code: expect.stringMatching(/^[0-9A-Z]{6}$/) });
    expect(made.players).toEqual([{ id: 'cr-host', state: { deck: 'red' }, isHost: true }]);
    // sent again where the answer is not remembered (another payload form): the id derived from the command finds it
    expect((await create('cr-host', { name: 'room' }, commandId)).id).toBe(made.id);
    expect(await refusal(create('cr-host'))).toMatchObject({ body: { status: 409 } });
    expect(await refusal(create('cr-big', { state: { blob: 'x'.repeat(17 * 1024) } }))).toMatchObject({ body: { status: 413 } });
    expect(await refusal(bed.request(L.create, { ...as('cr-other', { body: {} }), config: 'no-such-config' }))).toMatchObject({ body: { status: 404 } });
  });

  it('CreateLobby: a public lobby has an invite code too, unique among live lobbies, that joins it', async () => {
    const made = await Promise.all(['pc-1', 'pc-2', 'pc-3', 'pc-4'].map((h) => create(h)));
    for (const m of made) expect(m).toMatchObject({ isPrivate: false, code: expect.stringMatching(/^[0-9A-Z]{6}$/) });
    expect(new Set(made.map((m) => m.code)).size).toBe(made.length);
    expect(players(await join('pc-guest', { code: made[0].code! }))).toEqual(['pc-1', 'pc-guest']);
  });

  it('JoinLobby: by id or invite code, one lobby per config; a join re-sent with its command id is not applied twice', async () => {
    const made = await create('jn-host', { isPrivate: true });
    const commandId = randomUUID();
    const joined = await join('jn-a', { code: made.code! }, commandId);
    expect(players(joined)).toEqual(['jn-host', 'jn-a']);
    expect(players(await join('jn-a', { code: made.code! }, commandId))).toEqual(['jn-host', 'jn-a']); // the answer remembered
    // Sent again where the answer is not remembered (a restarted or another replica; here: a payload that
    // differs only in form): the store shows the join applied by this command id, so the lobby, not a 409.
    const again = await bed.request<LobbyView>(L.join, as('jn-a', { code: made.code!, state: {} }), { commandId });
    expect(players(again)).toEqual(['jn-host', 'jn-a']);
    expect(await refusal(join('jn-a', { lobbyId: made.id }))).toMatchObject({ body: { status: 409 } }); // a new command: already in it
    expect(await refusal(create('jn-a'))).toMatchObject({ body: { status: 409 } });
    expect(await refusal(join('jn-b', { lobbyId: randomUUID() }))).toMatchObject({ body: { status: 404 } });
    expect(await refusal(join('jn-b', { lobbyId: made.id, code: made.code! }))).toMatchObject({ body: { status: 422 } });
  });

  it('LeaveLobby: the member is gone and free to join elsewhere; a leaving host is replaced', async () => {
    const lobbyId = await lobbyOf('lv-host', 'lv-a');
    expect(await bed.request<LeftLobby>(L.leave, as('lv-host'))).toEqual({ status: 'left', lobbyId });
    expect(await mine('lv-a')).toMatchObject({ host: 'lv-a', currentPlayers: 1 });
    expect(await refusal(mine('lv-host'))).toMatchObject({ body: { status: 404 } });
    expect((await create('lv-host')).host).toBe('lv-host');
  });

  it('UpdateMyState: merged into the caller\'s state; 20 members at once all succeed and all are kept', async () => {
    const members = Array.from({ length: 19 }, (_, i) => `st-${i}`);
    const lobbyId = await bed.request<LobbyView>(L.create, as('st-host', { body: { maxPlayers: 20, state: { team: 'a' } } })).then((l) => l.id);
    for (const m of members) await join(m, { lobbyId });
    const everyone = ['st-host', ...members];
    const answers = await Promise.allSettled(everyone.map((p) => bed.request<LobbyView>(L.updateMyState, as(p, { state: { ready: true } }))));
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
    const now = await mine('st-host');
    expect(now.players.every((p) => p.state.ready === true)).toBe(true);
    expect(now.players.find((p) => p.id === 'st-host')!.state).toEqual({ team: 'a', ready: true });
    expect(await refusal(bed.request(L.updateMyState, as('st-host', { state: { blob: 'x'.repeat(17 * 1024) } })))).toMatchObject({ body: { status: 413 } });
  });

  it('UpdateLobbySettings: the host only; going private keeps the invite code others can join with', async () => {
    await lobbyOf('set-host', 'set-a');
    const before = await mine('set-host');
    const changed = await bed.request<LobbyView>(L.updateSettings, as('set-host', { changes: { name: 'renamed', isPrivate: true, settings: { map: 'dust' } } }));
    expect(changed).toMatchObject({ name: 'renamed', isPrivate: true, settings: { map: 'dust' }, code: before.code });
    expect(before.code).toMatch(/^[0-9A-Z]{6}$/);
    expect(players(await join('set-b', { code: changed.code! }))).toContain('set-b');
    expect(await refusal(bed.request(L.updateSettings, as('set-a', { changes: { name: 'mine' } })))).toMatchObject({ body: { status: 403 } });
  });

  it('KickPlayer and TransferHost: the host removes a member and hands the lobby on', async () => {
    await lobbyOf('kk-host', 'kk-a', 'kk-b');
    expect(players(await bed.request<LobbyView>(L.kick, as('kk-host', { targetId: 'kk-a' })))).toEqual(['kk-host', 'kk-b']);
    expect(await refusal(mine('kk-a'))).toMatchObject({ body: { status: 404 } });
    expect((await bed.request<LobbyView>(L.transferHost, as('kk-host', { targetId: 'kk-b' }))).host).toBe('kk-b');
    expect(await refusal(bed.request(L.kick, as('kk-host', { targetId: 'kk-b' })))).toMatchObject({ body: { status: 403 } });
  });

  it('StartLobby: the host only; a refusal of the servers service (no build) is the answer and the lobby waits again', async () => {
    await lobbyOf('sg-host', 'sg-a');
    expect(await refusal(bed.request(L.start, as('sg-a')))).toMatchObject({ body: { status: 403 } });
    const refused = await refusal(bed.request(L.start, as('sg-host')));
    expect(refused?.body.status).toBeGreaterThanOrEqual(400);
    expect(refused?.body.status).toBeLessThan(500);
    expect((await mine('sg-a')).status).toBe('waiting');
  });

  it('Heartbeat: a member\'s answer is empty; not a member is 404', async () => {
    await lobbyOf('hb-host');
    expect(await bed.request(L.heartbeat, as('hb-host'))).toEqual({});
    expect(await refusal(bed.request(L.heartbeat, as('hb-nobody')))).toMatchObject({ body: { status: 404 } });
  });

  it('EndMatch: only a lobby in game has a match to end', async () => {
    await lobbyOf('em-host');
    expect(await refusal(bed.request(L.endMatch, as('em-host')))).toMatchObject({ body: { status: 409 } });
  });

  it('CloseLobby: the host deletes it (members are free again); a member may not', async () => {
    const lobbyId = await lobbyOf('cl-host', 'cl-a');
    expect(await refusal(bed.request(L.close, as('cl-a')))).toMatchObject({ body: { status: 403 } });
    expect(await bed.request<DeletedLobby>(L.close, as('cl-host'))).toEqual({ status: 'lobby_deleted', id: lobbyId });
    expect(await refusal(mine('cl-a'))).toMatchObject({ body: { status: 404 } });
    expect((await create('cl-a')).host).toBe('cl-a');
  });

  it('AdminGetLobby and AdminDeleteLobby: any lobby of the project; another project\'s is 404', async () => {
    const lobbyId = await lobbyOf('ad-host', 'ad-a');
    const admin = { projectId, config: 'default', lobbyId };
    expect(players(await bed.request<LobbyView>(L.adminGet, admin))).toEqual(['ad-host', 'ad-a']);
    const other = (await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'other', plan: 'free' })).project_id;
    expect(await refusal(bed.request(L.adminGet, { ...admin, projectId: other }))).toMatchObject({ body: { status: 404 } });
    expect(await refusal(bed.request(L.adminDelete, { ...admin, projectId: other }))).toMatchObject({ body: { status: 404 } });
    expect(await bed.request<DeletedLobby>(L.adminDelete, admin)).toEqual({ status: 'lobby_deleted', id: lobbyId });
    expect(await refusal(bed.request(L.adminGet, admin))).toMatchObject({ body: { status: 404 } });
  });

  it('GetMyLobby: the caller\'s lobby; none is 404', async () => {
    const lobbyId = await lobbyOf('gm-host', 'gm-a');
    expect(await mine('gm-a')).toMatchObject({ id: lobbyId, host: 'gm-host', currentPlayers: 2 });
    expect(await refusal(mine('gm-nobody'))).toMatchObject({ body: { status: 404 } });
  });

  it('BrowseLobbies: public lobbies of the config, newest first, in limit/offset pages with the total', async () => {
    const first = await lobbyOf('br-1');
    const second = await lobbyOf('br-2');
    await create('br-private', { isPrivate: true });
    const all = await bed.request<LobbyPage<LobbyView>>(L.browse, { projectId, config: 'default', limit: 100 });
    expect(all.lobbies.every((l) => !l.isPrivate)).toBe(true);
    expect(all).toMatchObject({ total: all.lobbies.length, limit: 100, offset: 0, hasMore: false });
    const page = await bed.request<LobbyPage<LobbyView>>(L.browse, { projectId, config: 'default', limit: 1 });
    expect(page.lobbies.map((l) => l.id)).toEqual([second]);
    expect(page).toMatchObject({ total: all.total, limit: 1, offset: 0, hasMore: true });
    const next = await bed.request<LobbyPage<LobbyView>>(L.browse, { projectId, config: 'default', limit: 1, offset: 1 });
    expect(next.lobbies.map((l) => l.id)).toEqual([first]);
    expect(next.offset).toBe(1);
    const past = await bed.request<LobbyPage<LobbyView>>(L.browse, { projectId, config: 'default', offset: all.total });
    expect(past).toMatchObject({ lobbies: [], total: all.total, limit: 50, hasMore: false });
  });

  it('OpenLobbyStream: what was missed since Last-Event-ID, then the lobby now; every change is broadcast', async () => {
    const updates: LobbyUpdate[] = [];
    const stop = await bed.bus.listen(L.updates, (u: LobbyUpdate) => { updates.push(u); });
    try {
      const lobbyId = await lobbyOf('os-host', 'os-a');
      const opened = await bed.request<OpenedLobbyStream>(L.openStream, as('os-a'));
      expect(opened).toMatchObject({ replay: [], lobbyId, revision: 1 });
      await join('os-b', { lobbyId });
      await bed.request(L.kick, as('os-host', { targetId: 'os-b' }));
      const again = await bed.request<OpenedLobbyStream>(L.openStream, as('os-a', { lastEventId: `${lobbyId}:1` }));
      expect(again.replay.map((e) => [e.id, e.event])).toEqual([[`${lobbyId}:2`, 'lobby_updated'], [`${lobbyId}:3`, 'lobby_updated']]);
      expect(again).toMatchObject({ lobbyId, revision: 3 });
      // not a member at that point, nor now: nothing to read
      expect(await refusal(bed.request(L.openStream, as('os-b', { lastEventId: `${lobbyId}:1` })))).toMatchObject({ body: { status: 404 } });
      const mineOnly = updates.filter((u) => u.lobbyId === lobbyId);
      expect(mineOnly.map((u) => [u.revision, u.kind, u.removed])).toEqual([[0, 'updated', []], [1, 'updated', []], [2, 'updated', []], [3, 'updated', ['os-b']]]);
    } finally {
      await stop();
    }
  });
});
