/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadKubernetesSettings, parseKubernetesSettings, SETTINGS_DEFAULTS } from './settings';

const region = { namespace: 'games', tcpHost: 'relay.example.com', udpHost: '203.0.113.5', portRange: [7000, 7999] };

describe('parseKubernetesSettings', () => {
  it('fills the defaults around the regions', () => {
    expect(parseKubernetesSettings({ regions: { 'eu-west': region } })).toEqual({
      ...SETTINGS_DEFAULTS,
      fetchImage: 'busybox:1.36', baseImage: 'debian:12-slim',
      regions: { 'eu-west': { namespace: 'games', tcpHost: 'relay.example.com', udpHost: '203.0.113.5', portRange: [7000, 7999] } },
    });
  });

  it('takes every setting, and a port range written "low-high"', () => {
    const settings = parseKubernetesSettings({
      fetchImage: 'mirror/busybox:1.36', baseImage: 'mirror/debian:12', terminationGracePeriodSeconds: 10, startupTimeoutMs: 5000,
      pendingTimeoutMs: 60000, stopTimeoutMs: 0, runAsNonRoot: true, runAsUser: 65532, priorityClassName: 'game-servers', logStreams: 'split',
      regions: {
        'us-east': {
          ...region, context: 'prod-us', portRange: '30000-30999', nodeSelector: { 'node-role.example.com/games': '' },
          tolerations: [{ key: 'games', operator: 'Equal', value: 'yes', effect: 'NoExecute', tolerationSeconds: 30 }], imagePullSecrets: ['ghcr'],
        },
      },
    });
    expect(settings).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, logStreams: 'split', stopTimeoutMs: 0, priorityClassName: 'game-servers' });
    expect(settings.regions['us-east']).toMatchObject({ context: 'prod-us', portRange: [30000, 30999], imagePullSecrets: ['ghcr'] });
  });

  it('lists every problem at once, each with where it is', () => {
    const attempt = () => parseKubernetesSettings({
      fetchImage: 'has space', startupTimeoutMs: -1, logStreams: 'both', colour: 'blue',
      regions: {
        'eu-west': { namespace: 'Games_EU', tcpHost: 42, udpHost: 'udp://x', portRange: [9000, 8000], extra: 1 },
        'moon-base': region,
        'us-east': { ...region, nodeSelector: { 'bad key!': 'x' }, tolerations: [{ operator: 'Sometimes' }] },
      },
    }, 'config.yaml');
    expect(attempt).toThrow(/^invalid config.yaml:\n/);
    const message = (() => { try { attempt(); return ''; } catch (err) { return (err as Error).message; } })();
    for (const expected of [
      'fetchImage: must be an image reference', 'startupTimeoutMs: must be an integer >= 1', 'logStreams: must be "combined" or "split"',
      'colour: unknown setting', 'regions.eu-west.namespace: required', 'regions.eu-west.tcpHost: must be a host name or IP address, or empty',
      'regions.eu-west.udpHost: must be a host name or IP address, or empty',
      'regions.eu-west.portRange: required', 'regions.eu-west.extra: unknown setting', 'regions.moon-base: not a Spawnpoint region',
      'regions.us-east.nodeSelector.bad key!: not a valid label key', 'regions.us-east.tolerations[0]: operator must be Equal or Exists',
    ]) expect(message).toContain(expected);
  });

  it('takes an absent or empty tcpHost/udpHost as "the address of the game pod\'s node"', () => {
    const settings = parseKubernetesSettings({ regions: {
      'eu-west': { namespace: 'games', portRange: [7000, 7999] },
      'us-east': { namespace: 'games', tcpHost: '', udpHost: '203.0.113.5', portRange: '8000-8999' },
    } });
    expect(settings.regions['eu-west']).toMatchObject({ tcpHost: '', udpHost: '' });
    expect(settings.regions['us-east']).toMatchObject({ tcpHost: '', udpHost: '203.0.113.5' });
  });

  it('requires at least one region', () => {
    expect(() => parseKubernetesSettings({ regions: {} })).toThrow(/regions: at least one region is required/);
    expect(() => parseKubernetesSettings([])).toThrow(/expected an object/);
  });

  it('refuses overlapping port ranges for regions that share nodes, allows them for regions that do not', () => {
    expect(() => parseKubernetesSettings({ regions: { 'eu-west': region, 'eu-north': { ...region, portRange: [7500, 8500] } } }))
      .toThrow(/regions.eu-north.portRange: overlaps regions.eu-west.portRange/);
    expect(() => parseKubernetesSettings({
      regions: { 'eu-west': { ...region, nodeSelector: { zone: 'a' } }, 'eu-north': { ...region, nodeSelector: { zone: 'b' } } },
    })).not.toThrow();
    expect(() => parseKubernetesSettings({ regions: { 'eu-west': { ...region, context: 'a' }, 'eu-north': { ...region, context: 'b' } } })).not.toThrow();
  });
});

describe('loadKubernetesSettings', () => {
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-k8s-settings-')); });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('explains a missing SPAWNPOINT_K8S_CONFIG or file', async () => {
    await expect(loadKubernetesSettings({})).rejects.toThrow(/SPAWNPOINT_K8S_CONFIG is not set/);
    await expect(loadKubernetesSettings({ SPAWNPOINT_K8S_CONFIG: path.join(dir, 'nope.yaml') })).rejects.toThrow(/cannot read.*ENOENT/);
  });

  it('reads YAML', async () => {
    const file = path.join(dir, 'runtime.yaml');
    await writeFile(file, 'logStreams: split\nregions:\n  eu-west:\n    namespace: games\n    tcpHost: relay.example.com\n    udpHost: 203.0.113.5\n    portRange: 7000-7099\n');
    const settings = await loadKubernetesSettings({ SPAWNPOINT_K8S_CONFIG: file });
    expect(settings.logStreams).toBe('split');
    expect(settings.regions['eu-west'].portRange).toEqual([7000, 7099]);
  });

  it('reads JSON', async () => {
    const file = path.join(dir, 'runtime.json');
    await writeFile(file, JSON.stringify({ regions: { 'sea': region } }));
    expect(Object.keys((await loadKubernetesSettings({ SPAWNPOINT_K8S_CONFIG: file })).regions)).toEqual(['sea']);
  });

  it('names the file in parse and validation errors', async () => {
    const broken = path.join(dir, 'broken.yaml');
    await writeFile(broken, 'regions: [unclosed\n');
    await expect(loadKubernetesSettings({ SPAWNPOINT_K8S_CONFIG: broken })).rejects.toThrow(/broken.yaml: not valid YAML/);
    const invalid = path.join(dir, 'invalid.json');
    await writeFile(invalid, '{"regions": {"sea": {}}}');
    await expect(loadKubernetesSettings({ SPAWNPOINT_K8S_CONFIG: invalid })).rejects.toThrow(/invalid kubernetes runtime config .*invalid.json:\n {2}- regions.sea.namespace/);
  });
});
