import { buildGameEnv, portEnvName, type GameEnvInput } from './game-env';
import type { AllocatedPort } from './runtime';

const port = (name: string, protocol: 'tcp' | 'udp', bindPort: number): AllocatedPort => ({
  name, protocol, internalPort: 7777, tlsEnabled: false, bindPort, externalPort: bindPort + 1000, host: '127.0.0.1',
});

const input = (overrides: Partial<GameEnvInput> = {}): GameEnvInput => ({
  instanceId: 'srv-1', matchId: 'match-9', region: 'eu-west', computeSize: 'small',
  versionTag: 'v1.2', version: 3, customData: { map: 'dust' },
  ports: [port('game', 'udp', 7001), port('game-tcp', 'tcp', 7002)],
  projectEnv: {}, requestEnv: {},
  ...overrides,
});

describe('portEnvName', () => {
  it.each([
    ['game', 'SPAWNPOINT_PORT_GAME'],
    ['game_tcp', 'SPAWNPOINT_PORT_GAME_TCP'],
    ['query-port', 'SPAWNPOINT_PORT_QUERY_PORT'],
    ['rcon.v2', 'SPAWNPOINT_PORT_RCON_V2'],
    ['Web Socket', 'SPAWNPOINT_PORT_WEB_SOCKET'],
  ])('%s → %s', (name, expected) => {
    expect(portEnvName(name)).toBe(expected);
  });
});

describe('buildGameEnv', () => {
  it('sets the SPAWNPOINT_* contract', () => {
    expect(buildGameEnv(input())).toEqual({
      SPAWNPOINT_INSTANCE_ID: 'srv-1',
      SPAWNPOINT_MATCH_ID: 'match-9',
      SPAWNPOINT_REGION: 'eu-west',
      SPAWNPOINT_COMPUTE_SIZE: 'small',
      SPAWNPOINT_VERSION_TAG: 'v1.2',
      SPAWNPOINT_VERSION: '3',
      SPAWNPOINT_CUSTOM_DATA: '{"map":"dust"}',
      SPAWNPOINT_PORT_GAME: '7001',
      SPAWNPOINT_PORT_GAME_TCP: '7002',
      SPAWNPOINT_PORTS: '[{"name":"game","port":7001,"protocol":"udp"},{"name":"game-tcp","port":7002,"protocol":"tcp"}]',
    });
  });

  it('uses the bind port, not the external one', () => {
    const env = buildGameEnv(input({ ports: [port('game', 'udp', 9000)] }));
    expect(env.SPAWNPOINT_PORT_GAME).toBe('9000');
    expect(JSON.parse(env.SPAWNPOINT_PORTS)).toEqual([{ name: 'game', port: 9000, protocol: 'udp' }]);
  });

  it('writes null version and custom data as empty string and JSON null', () => {
    const env = buildGameEnv(input({ version: null, customData: null, ports: [] }));
    expect(env.SPAWNPOINT_VERSION).toBe('');
    expect(env.SPAWNPOINT_CUSTOM_DATA).toBe('null');
    expect(env.SPAWNPOINT_PORTS).toBe('[]');
  });

  it('layers request env over project env, and the contract over both', () => {
    const env = buildGameEnv(input({
      projectEnv: { MODE: 'ranked', TICK: '64', SPAWNPOINT_REGION: 'fake' },
      requestEnv: { MODE: 'casual', SPAWNPOINT_INSTANCE_ID: 'fake', SPAWNPOINT_PORT_GAME: '1' },
    }));
    expect(env.MODE).toBe('casual');
    expect(env.TICK).toBe('64');
    expect(env.SPAWNPOINT_REGION).toBe('eu-west');
    expect(env.SPAWNPOINT_INSTANCE_ID).toBe('srv-1');
    expect(env.SPAWNPOINT_PORT_GAME).toBe('7001');
  });

  it('adds the game API variables when the machine has a token, over anything the user set', () => {
    const env = buildGameEnv(input({
      requestEnv: { SPAWNPOINT_SERVER_TOKEN: 'fake', SPAWNPOINT_API_URL: 'http://evil', SPAWNPOINT_SERVER_ID: 'other' },
      serverToken: 'spt_x', apiUrl: 'http://gw:8080/api',
    }));
    expect(env).toMatchObject({ SPAWNPOINT_SERVER_ID: 'srv-1', SPAWNPOINT_SERVER_TOKEN: 'spt_x', SPAWNPOINT_API_URL: 'http://gw:8080/api' });
    expect(buildGameEnv(input())).not.toHaveProperty('SPAWNPOINT_SERVER_TOKEN');
  });
});
