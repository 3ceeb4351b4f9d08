// The check of responses against the hosted service's published documents (read from ../shared at test
// time). Under CI the documents are there and this suite must run; elsewhere it says why it is skipped.
import { checkPublished, describedBy, publishedMissing } from './playflow-published';

const missing = publishedMissing();
if (missing && process.env.CI === 'true') {
  throw new Error(`CI needs ${missing}: the v2 and legacy responses of the e2e suites are checked against them`);
}
if (missing) console.warn(`playflow-published.unit.spec.ts skipped: ${missing}`);
const describeWithDocs = missing ? describe.skip : describe;

const API = 'http://127.0.0.1:8080/api';
const LEGACY = 'http://127.0.0.1:8081';
const port = { name: 'game', internal_port: 7777, external_port: 30001, protocol: 'udp', host: '127.0.0.1', tls_enabled: false };
const instance = { instance_id: '0f0f0f0f-0000-4000-8000-000000000001', name: 'm1', status: 'running', network_ports: [port], region: 'us-east', version: 1, started_at: '2026-11-28T10:00:00.000Z', stopped_at: null, custom_data: null, ttl: null };
const lobby = {
  id: 'e495d158-5d18-45e4-81b2-384790a8b830', name: 'n', host: 'p1', maxPlayers: 8, currentPlayers: 1, region: 'us-east', status: 'waiting', isPrivate: false,
  useInviteCode: true, inviteCode: 'ABC234', allowLateJoin: false, settings: {}, players: ['p1'], lobbyStateRealTime: { p1: {} }, gameServer: null, timeout: 300,
  createdAt: '2026-11-28T10:00:00.000Z', updatedAt: '2026-11-28T10:00:00.000Z',
};

describe('which document describes a route', () => {
  it('v2 under the API base, health at the root, legacy lobbies and matchmaker on the legacy listener; nothing else', () => {
    expect(describedBy(`${API}/v2/servers/`)).toEqual({ name: 'v2', path: '/v2/servers/' });
    expect(describedBy('http://127.0.0.1:8080/health')).toEqual({ name: 'v2', path: '/health' });
    expect(describedBy(`${LEGACY}/lobbies/x/players?name=default`)).toEqual({ name: 'legacy', path: '/lobbies/x/players' });
    expect(describedBy(`${LEGACY}/matchmaker/tickets`)).toEqual({ name: 'legacy', path: '/matchmaker/tickets' });
    expect(describedBy(`${API}/v3/servers`)).toBeNull();
    expect(describedBy(`${API}/health`)).toBeNull();
  });
});

describeWithDocs('responses against the published documents', () => {
  it('passes a v2 list of the published shape, with or without the trailing slash', () => {
    expect(checkPublished('GET', `${API}/v2/servers/`, 200, { total_servers: 1, servers: [instance] })).toEqual({ operation: 'GET /v2/servers/', problems: [] });
    expect(checkPublished('GET', `${API}/v2/servers?include_launching=true`, 200, { total_servers: 0, servers: [] }).problems).toEqual([]);
  });

  it('names what a v2 body lacks or types wrongly', () => {
    expect(checkPublished('GET', `${API}/v2/servers/`, 200, { total: 1, servers: [instance] }).problems.join()).toMatch(/total_servers/);
    const badPort = { ...instance, network_ports: [{ ...port, protocol: 'sctp' }] };
    expect(checkPublished('GET', `${API}/v2/servers/${instance.instance_id}`, 200, badPort).problems.join()).toMatch(/network_ports\/0\/protocol/);
    expect(checkPublished('GET', `${API}/v2/servers/${instance.instance_id}`, 200, { ...instance, status: 'starting' }).problems.join()).toMatch(/\/status/);
  });

  it('refuses a success status the document does not give, and leaves undocumented errors to the suites', () => {
    const started = { instance_id: instance.instance_id, name: 'm1', region: 'us-east', status: 'launching', network_ports: [port] };
    expect(checkPublished('POST', `${API}/v2/servers/start`, 201, started).problems).toEqual([]);
    expect(checkPublished('POST', `${API}/v2/servers/start`, 200, started).problems.join()).toMatch(/status 200 is not one the document gives \(201\)/);
    expect(checkPublished('GET', `${API}/v2/servers/${instance.instance_id}`, 404, { error: 'Not found', status: 404 }).problems).toEqual([]);
  });

  it('reads OpenAPI 3.0 nullable fields and enums in the legacy document', () => {
    expect(checkPublished('GET', `${LEGACY}/lobbies/${lobby.id}?name=default`, 200, lobby)).toEqual({ operation: 'GET /lobbies/{id}', problems: [] });
    expect(checkPublished('GET', `${LEGACY}/lobbies?name=default`, 200, [{ ...lobby, inviteCode: null, settings: null }]).problems).toEqual([]);
    expect(checkPublished('GET', `${LEGACY}/lobbies?name=default`, 200, [{ ...lobby, status: 'in_queue' }]).problems.join()).toMatch(/\/0\/status/);
    expect(checkPublished('POST', `${LEGACY}/lobbies/code/ABC234/players?name=default`, 200, { ...lobby, maxPlayers: 'eight' }).operation).toBe('POST /lobbies/code/{code}/players');
    expect(checkPublished('POST', `${LEGACY}/lobbies/code/ABC234/players?name=default`, 200, { ...lobby, maxPlayers: 'eight' }).problems.join()).toMatch(/maxPlayers/);
    expect(checkPublished('DELETE', `${LEGACY}/lobbies/${lobby.id}?name=default`, 204, null).problems).toEqual([]);
    expect(checkPublished('DELETE', `${LEGACY}/lobbies/${lobby.id}?name=default`, 200, null).problems.join()).toMatch(/not one the document gives \(204\)/);
  });

  it('does not check routes the documents do not describe', () => {
    expect(checkPublished('POST', `${LEGACY}/lobbies/${lobby.id}/heartbeat`, 200, { anything: 1 })).toEqual({ operation: null, problems: [] });
    expect(checkPublished('GET', `${API}/v2/project`, 200, { project_id: 'p' })).toEqual({ operation: null, problems: [] });
  });
});
