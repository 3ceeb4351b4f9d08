// Settings and machine specs shared by the kubernetes runtime's specs.
import { buildGameEnv } from '../../game-env';
import type { AllocatedPort, MachineSpec, PortSpec } from '../../runtime';
import { parseKubernetesSettings, type KubernetesRuntimeSettings } from '../settings';

export const TCP_GAME: PortSpec = { name: 'game_tcp', internalPort: 7778, protocol: 'tcp', tlsEnabled: false };
export const UDP_GAME: PortSpec = { name: 'game', internalPort: 7777, protocol: 'udp', tlsEnabled: false };
export const UDP_VOICE: PortSpec = { name: 'Voice Chat (UDP)!', internalPort: 9000, protocol: 'udp', tlsEnabled: true };

export function testSettings(overrides: Record<string, unknown> = {}): KubernetesRuntimeSettings {
  return parseKubernetesSettings({
    regions: {
      'eu-west': { namespace: 'games-eu', tcpHost: 'relay.eu.example.com', udpHost: '203.0.113.10', portRange: [30000, 30999] },
      'us-east': {
        context: 'us-cluster', namespace: 'games', tcpHost: 'relay.us.example.com', udpHost: '198.51.100.7', portRange: '7000-7999',
        nodeSelector: { 'spawnpoint.dev/game-node': 'true', 'topology.kubernetes.io/zone': 'us-east-1a' },
        tolerations: [{ key: 'spawnpoint.dev/games', operator: 'Exists', effect: 'NoSchedule' }],
        imagePullSecrets: ['registry-credentials'],
      },
      'ap-north': { namespace: 'games-ap', tcpHost: 'relay.ap.example.com', udpHost: '192.0.2.33', portRange: [40000, 40099] },
    },
    ...overrides,
  });
}

/** Ports as the kubernetes runtime allocates them: the game binds internalPort, the node exposes externalPort. */
export function allocated(specs: PortSpec[], firstExternal = 30100): AllocatedPort[] {
  return specs.map((spec, i) => ({
    ...spec, bindPort: spec.internalPort, externalPort: firstExternal + i, host: spec.protocol === 'tcp' ? 'relay.example.com' : '203.0.113.10',
  }));
}

export interface SpecInput {
  serverId?: string;
  region?: string;
  computeSize?: string;
  ports?: PortSpec[];
  build?: 'zip' | 'image';
  args?: string[];
  requestEnv?: Record<string, string>;
  pool?: boolean;
}

export function machineSpec(input: SpecInput = {}): MachineSpec {
  const serverId = input.serverId ?? '0b4f2a63-5c3e-4d8e-9a51-2f1c7e0d9b44';
  const region = input.region ?? 'eu-west';
  const computeSize = input.computeSize ?? 'small';
  const ports = allocated(input.ports ?? [UDP_GAME, TCP_GAME]);
  const build = (input.build ?? 'zip') === 'zip'
    ? { buildDir: '/var/lib/spawnpoint/builds/b1', executablePath: 'bin/server', artifactUrl: 'http://spawnpoint-gateway.spawnpoint.svc/internal/builds/b1/artifact.tar.gz?token=t0k3n' }
    : { image: 'ghcr.io/acme/arena-server:1.4.2' };
  return {
    serverId, projectId: 'proj_7Hq2', ...build, args: input.args ?? ['--map', 'de dust', ''], computeSize, region, ports, ...(input.pool ? { pool: true } : {}),
    env: buildGameEnv({
      instanceId: serverId, matchId: 'match-1', region, computeSize, versionTag: 'season-3', version: 12,
      customData: { mode: 'ranked' }, ports, projectEnv: { LOG_LEVEL: 'debug' }, requestEnv: input.requestEnv ?? {},
      serverToken: `spt_${serverId}_${'k'.repeat(43)}`, apiUrl: 'http://spawnpoint-gateway.spawnpoint.svc:8080/api',
    }),
  };
}
