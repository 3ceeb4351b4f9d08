import type { LobbyView } from '@spawnpoint/domain';
import {
  goneTicketId, matchStatus, modeCapacity, ratingField, ServerJson, serverMatch, TICKET_SETTING, ticketInfo, ticketMode, ticketStatus, toLegacyServer, toMatch, toTicket,
} from './legacy-ticket';

const LOBBY_ID = '11111111-1111-4111-8111-111111111111';
const SERVER_ID = '22222222-2222-4222-8222-222222222222';

function lobby(over: Partial<LobbyView> = {}): LobbyView {
  return {
    id: LOBBY_ID, code: 'ABC234', config: 'duels', name: 'ticket p1', status: 'in_queue', host: 'p1', maxPlayers: 1, currentPlayers: 1, region: 'eu-west',
    isPrivate: true, allowLateJoin: false,
    settings: { [TICKET_SETTING]: { matchmaker_id: 'cfg-1', mode: 'ranked', regions: ['eu-west', 'us-east'], elo: 1500, gameBuild: 'B1' } },
    players: [{ id: 'p1', state: { skill: 1500 }, isHost: true }], server: null,
    matchmaking: { mode: 'ranked', startedAt: '2026-01-01T00:00:01.000Z', queueStats: { playersSearching: 1, lobbiesInQueue: 1, avgWaitSeconds: 0 }, confirmation: null },
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:01.000Z',
    ...over,
  };
}

const gameServer: ServerJson = {
  instance_id: SERVER_ID, name: 'match-m1', status: 'running', service_type: 'match_based', compute_size: 'small', region: 'eu-west', version_tag: 'default', version: 3,
  network_ports: [{ name: 'game', internal_port: 7777, external_port: 17001, protocol: 'udp', host: '127.0.0.1', tls_enabled: false }],
  custom_data: { match: { mode: 'ranked', teams: [['p1'], ['p2']], lobbies: [LOBBY_ID, '33333333-3333-4333-8333-333333333333'] }, lobby_config: 'duels' },
  match_id: 'm1', created_at: '2026-01-01T00:01:00.000Z',
};

describe('ticket status from the lobby', () => {
  it('given a searching lobby, then In Queue', () => {
    expect(ticketStatus(lobby())).toBe('In Queue');
    expect(ticketStatus(lobby({ status: 'match_found' }))).toBe('In Queue');
  });
  it('given a matched lobby without its server yet, then still In Queue (matched always carries connection details)', () => {
    expect(ticketStatus(lobby({ status: 'matched' }))).toBe('In Queue');
  });
  it('given a lobby with its game server, then matched', () => {
    for (const status of ['matched', 'starting', 'in_game'] as const) expect(ticketStatus(lobby({ status, server: { instance_id: SERVER_ID } }))).toBe('matched');
  });
  it('given a lobby back to waiting, then expired after a timeout, abandoned after a failed start, else cancelled', () => {
    expect(ticketStatus(lobby({ status: 'waiting', matchmaking: null, matchmakingError: 'timeout' }))).toBe('expired');
    expect(ticketStatus(lobby({ status: 'waiting', matchmaking: null, matchmakingError: 'confirmation_timeout' }))).toBe('expired');
    expect(ticketStatus(lobby({ status: 'waiting', matchmaking: null, matchmakingError: 'build not found' }))).toBe('abandoned');
    expect(ticketStatus(lobby({ status: 'waiting', matchmaking: null, matchmakingError: 'declined' }))).toBe('cancelled');
    expect(ticketStatus(lobby({ status: 'waiting', matchmaking: null }))).toBe('cancelled');
  });
});

describe('ticket view from the lobby view', () => {
  it('given a ticket lobby, then the ticket with what it was created with', () => {
    expect(toTicket(lobby(), 'ignored')).toEqual({
      ticket_id: LOBBY_ID, player_id: 'p1', matchmaker_id: 'cfg-1', status: 'In Queue', created_at: Date.parse('2026-01-01T00:00:00.000Z'),
      regions: ['eu-west', 'us-east'], elo: 1500, gameBuild: 'B1', mode: 'ranked',
    });
  });
  it('given a v3 party lobby in a match, then a ticket per player with the lobby region and no elo', () => {
    const party = lobby({ settings: {}, host: 'h', players: [{ id: 'h', state: {}, isHost: true }, { id: 'g', state: {}, isHost: false }] });
    expect(ticketInfo(party)).toBeNull();
    expect(toTicket(party, 'cfg-1', 'g')).toEqual({ ticket_id: LOBBY_ID, player_id: 'g', matchmaker_id: 'cfg-1', status: 'In Queue', created_at: Date.parse(party.createdAt), regions: ['eu-west'], mode: 'ranked' });
  });
  it('given a match, then only a matched ticket carries it', () => {
    const match = toMatch(gameServer, { matchmakerId: 'cfg-1', mode: null, lobbies: [] });
    expect(toTicket(lobby(), 'cfg-1', 'p1', match)).not.toHaveProperty('match');
    expect(toTicket(lobby({ status: 'in_game', server: { instance_id: SERVER_ID } }), 'cfg-1', 'p1', match).match).toBe(match);
  });
});

describe('match view from a matchmade server', () => {
  it('given a running server of the config, then an active match of its teams as tickets, a gone lobby as a deleted ticket', () => {
    const mine = lobby({ status: 'in_game', server: { instance_id: SERVER_ID } });
    const m = toMatch(gameServer, { matchmakerId: 'cfg-1', mode: { teams: 2, playersPerTeam: 1, roles: null, allowBackfill: true }, lobbies: [mine] });
    expect(m).toMatchObject({
      match_id: 'm1', matchmaker_id: 'cfg-1', gameBuild: 'B1', status: 'active', created_at: Date.parse(gameServer.created_at), backfill: true, maxPlayers: 2, currentPlayers: 2, mode: 'ranked',
    });
    expect(m.teams.map((t) => t.map((p) => p.player_id))).toEqual([['p1'], ['p2']]);
    expect(m.players[0]).toMatchObject({ ticket_id: LOBBY_ID, status: 'matched' });
    expect(m.players[1]).toMatchObject({ ticket_id: goneTicketId('m1', 'p2'), status: 'deleted', player_id: 'p2' });
    expect(m.players[1].ticket_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('given no ticket with a build, then the build version of the server', () => {
    expect(toMatch(gameServer, { matchmakerId: 'cfg-1', mode: null, lobbies: [] }).gameBuild).toBe('3');
  });
  it('maps server statuses and keeps only the connection details', () => {
    expect([matchStatus('launching'), matchStatus('running'), matchStatus('stopped')]).toEqual(['created', 'active', 'ended']);
    expect(toLegacyServer(gameServer)).toEqual({
      instance_id: SERVER_ID, name: 'match-m1', status: 'running', service_type: 'match_based', compute_size: 'small', region: 'eu-west', version_tag: 'default', game_build: '3',
      network_ports: gameServer.network_ports, custom_data: gameServer.custom_data,
    });
  });
  it('finds the match of a server only for its config', () => {
    expect(serverMatch(gameServer, 'duels')).toEqual({ mode: 'ranked', teams: [['p1'], ['p2']], lobbies: gameServer.custom_data!.match && (gameServer.custom_data!.match as { lobbies: string[] }).lobbies });
    expect(serverMatch(gameServer, 'other')).toBeNull();
    expect(serverMatch({ custom_data: { keep: true } })).toBeNull();
  });
});

describe('a new ticket in the configuration', () => {
  it('takes the first preferred mode the config has, else its first mode', () => {
    expect(ticketMode({ a: {}, b: {} }, ['x', 'b'])).toBe('b');
    expect(ticketMode({ a: {}, b: {} }, ['x'])).toBe('a');
    expect(ticketMode({ a: {} }, undefined)).toBe('a');
    expect(ticketMode({}, ['a'])).toBeNull();
  });
  it('puts elo in the difference rule field, else mmr', () => {
    expect(ratingField({ rules: [{ type: 'latency', maxMs: 80 }, { type: 'difference', field: 'skill', maxDifference: 1, expandEvery: null, expandBy: 0, maxExpansion: null }] })).toBe('skill');
    expect(ratingField({ rules: [] })).toBe('mmr');
  });
  it('counts a match capacity from teams, or roles', () => {
    expect(modeCapacity({ teams: 2, playersPerTeam: 3, roles: null })).toBe(6);
    expect(modeCapacity({ teams: 2, playersPerTeam: 1, roles: { tank: { count: 1, field: 'role' }, healer: { count: 2, field: 'role' } } })).toBe(6);
  });
});
