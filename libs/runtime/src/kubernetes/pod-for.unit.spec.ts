/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { promisify } from 'node:util';
import { COMPUTE_SIZES } from '@spawnpoint/domain';
import type { V1Pod } from '@kubernetes/client-node';
import type { PortSpec } from '../runtime';
import { containerPorts, literal, podFor, portNames, udpBoundScript } from './pod-for';
import { allocated, machineSpec, TCP_GAME, testSettings, UDP_GAME, UDP_VOICE } from './testing/fixtures';
import { apiServerProblems, isIanaSvcName, qosClass, validateManifest } from './testing/manifests';

const settings = testSettings();
const game = (pod: V1Pod) => pod.spec!.containers.find((c) => c.name === 'game')!;
const init = (pod: V1Pod, name: string) => pod.spec!.initContainers?.find((c) => c.name === name);

const PORT_SETS: Record<string, PortSpec[]> = {
  'TCP only': [TCP_GAME],
  'UDP only': [UDP_GAME, UDP_VOICE],
  'TCP and UDP': [UDP_GAME, TCP_GAME, UDP_VOICE],
  'no ports': [],
};

describe('podFor: every combination is a valid Pod', () => {
  const cases = COMPUTE_SIZES.flatMap((size) => (['zip', 'image'] as const).flatMap((build) =>
    Object.keys(PORT_SETS).map((ports, i) => ({ size: size.name, build, ports, region: Object.keys(settings.regions)[i % 3], pool: i % 2 === 0 }))));

  it('covers every size, both build kinds, every port mix, every region, pool servers and others', () => {
    expect(new Set(cases.map((c) => c.size)).size).toBe(9);
    expect(new Set(cases.map((c) => c.region)).size).toBe(3);
    expect(new Set(cases.map((c) => c.pool)).size).toBe(2);
    expect(cases).toHaveLength(9 * 2 * 4);
  });

  it.each(cases)('$size, $build build, $ports, $region, pool $pool', async ({ size, build, ports, region, pool }) => {
    const spec = machineSpec({ computeSize: size, build, ports: PORT_SETS[ports], region, pool });
    const pod = podFor(spec, settings);
    await validateManifest(pod as never);
    expect(pod.metadata!.labels!['spawnpoint.dev/pool']).toBe(pool ? 'true' : undefined);

    const sizeRow = COMPUTE_SIZES.find((s) => s.name === size)!;
    expect(game(pod).resources!.requests!.memory).toBe(`${sizeRow.memoryMb}Mi`);
    expect(game(pod).resources!.limits!.memory).toBe(`${sizeRow.memoryMb}Mi`);
    expect(qosClass(pod.spec)).toBe(sizeRow.shared ? 'Burstable' : 'Guaranteed');
    expect(pod.metadata!.namespace).toBe(settings.regions[region].namespace);
    expect(game(pod).ports ?? []).toHaveLength(PORT_SETS[ports].length);
  });
});

describe('podFor', () => {
  it('requests the size table: cpu as a quantity, memory in Mi; dedicated sizes also limit cpu', () => {
    const resources = (computeSize: string) => game(podFor(machineSpec({ computeSize }), settings)).resources;
    expect(resources('micro')).toEqual({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '512Mi' } });
    expect(resources('medium')).toEqual({ requests: { cpu: '1', memory: '2048Mi' }, limits: { memory: '2048Mi' } });
    expect(resources('dedicated-xlarge')).toEqual({ requests: { cpu: '2', memory: '16384Mi' }, limits: { cpu: '2', memory: '16384Mi' } });
  });

  it('names, labels and annotates the pod so the runtime (and a relay) can find it', () => {
    const spec = machineSpec({ region: 'us-east' });
    const pod = podFor(spec, settings);
    expect(pod.metadata!.name).toBe(`sp-${spec.serverId}`);
    expect(pod.metadata!.labels).toEqual({
      'app.kubernetes.io/managed-by': 'spawnpoint',
      'spawnpoint.dev/project': 'proj_7Hq2',
      'spawnpoint.dev/server': spec.serverId,
      'spawnpoint.dev/region': 'us-east',
      'spawnpoint.dev/build': 'season-3',
      'spawnpoint.dev/build-version': '12',
    });
    expect(pod.metadata!.annotations).toMatchObject({
      'spawnpoint.dev/server-id': spec.serverId,
      'spawnpoint.dev/project-id': 'proj_7Hq2',
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false',
    });
    expect(JSON.parse(pod.metadata!.annotations!['spawnpoint.dev/ports'])).toEqual([
      { name: 'game', protocol: 'udp', internalPort: 7777, externalPort: 30100 },
      { name: 'game_tcp', protocol: 'tcp', internalPort: 7778, externalPort: 30101 },
    ]);
  });

  it('leaves the build labels out when the spec does not name a build', () => {
    const spec = machineSpec();
    delete spec.env.SPAWNPOINT_VERSION_TAG;
    spec.env.SPAWNPOINT_VERSION = '';
    const labels = podFor(spec, settings).metadata!.labels!;
    expect(labels).not.toHaveProperty(['spawnpoint.dev/build']);
    expect(labels).not.toHaveProperty(['spawnpoint.dev/build-version']);
  });

  it('sets the pod-level policies: no restarts, no API token, no service links, the grace period', () => {
    const pod = podFor(machineSpec(), testSettings({ terminationGracePeriodSeconds: 45 }));
    expect(pod.spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, enableServiceLinks: false, terminationGracePeriodSeconds: 45 });
    expect(pod.spec!.securityContext).toBeUndefined();
  });

  it('places pods by the region: node selector, tolerations, pull secrets', () => {
    const us = podFor(machineSpec({ region: 'us-east' }), settings).spec!;
    expect(us.nodeSelector).toEqual({ 'spawnpoint.dev/game-node': 'true', 'topology.kubernetes.io/zone': 'us-east-1a' });
    expect(us.tolerations).toEqual([{ key: 'spawnpoint.dev/games', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(us.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    const eu = podFor(machineSpec({ region: 'eu-west' }), settings).spec!;
    expect(eu.nodeSelector).toBeUndefined();
    expect(eu.tolerations).toBeUndefined();
  });

  it('runs a zip build on the base image from /game, fetched there by an init container', () => {
    const spec = machineSpec({ build: 'zip' });
    const pod = podFor(spec, settings);
    expect(game(pod)).toMatchObject({
      image: 'debian:12-slim', command: ['/game/bin/server'], workingDir: '/game', volumeMounts: [{ name: 'game', mountPath: '/game' }],
    });
    const fetch = init(pod, 'fetch')!;
    expect(fetch.image).toBe('busybox:1.36');
    expect(fetch.env).toEqual([{ name: 'SPAWNPOINT_ARTIFACT_URL', value: spec.artifactUrl }]);
    expect(fetch.volumeMounts).toEqual([{ name: 'game', mountPath: '/game' }]);
    expect(fetch.command!.join(' ')).toContain('tar -xzf');
    expect(pod.spec!.volumes).toEqual([{ name: 'game', emptyDir: {} }]);
    // The artifact URL carries a token: the game must not see it.
    expect(game(pod).env!.map((e) => e.name)).not.toContain('SPAWNPOINT_ARTIFACT_URL');
  });

  it('uses the configured images', () => {
    const pod = podFor(machineSpec({ build: 'zip' }), testSettings({ fetchImage: 'registry.local/busybox:1.36.1', baseImage: 'registry.local/games-base:2' }));
    expect(game(pod).image).toBe('registry.local/games-base:2');
    expect(init(pod, 'fetch')!.image).toBe('registry.local/busybox:1.36.1');
  });

  it('runs an image build as given: the image\'s own command, the spec\'s args, no init container', () => {
    const pod = podFor(machineSpec({ build: 'image', ports: [TCP_GAME] }), settings);
    expect(game(pod).image).toBe('ghcr.io/acme/arena-server:1.4.2');
    expect(game(pod).command).toBeUndefined();
    expect(game(pod).workingDir).toBeUndefined();
    expect(game(pod).args).toEqual(['--map', 'de dust', '']);
    expect(pod.spec!.initContainers).toBeUndefined();
    expect(pod.spec!.volumes).toBeUndefined();
  });

  it('leaves args out when there are none, so an image keeps its default CMD', () => {
    expect(game(podFor(machineSpec({ build: 'image', args: [] }), settings)).args).toBeUndefined();
  });

  it('passes every env entry, with $ escaped so the kubelet hands them over unchanged', () => {
    const spec = machineSpec({ requestEnv: { GREETING: 'cost $(PRICE) or $$5', PRICE: '3' }, args: ['--say', '$(GREETING)'] });
    const pod = podFor(spec, settings);
    const env = Object.fromEntries(game(pod).env!.map((e) => [e.name, e.value]));
    expect(Object.keys(env).sort()).toEqual(Object.keys(spec.env).sort());
    expect(env.GREETING).toBe('cost $$(PRICE) or $$$$5');
    expect(env.SPAWNPOINT_PORT_GAME).toBe('7777');
    expect(game(pod).args).toEqual(['--say', '$$(GREETING)']);
  });

  it('gives the game its server id, token and API base (ADR-0016), not the init container', () => {
    const spec = machineSpec();
    const pod = podFor(spec, settings);
    const env = Object.fromEntries(game(pod).env!.map((e) => [e.name, e.value]));
    expect(env.SPAWNPOINT_SERVER_ID).toBe(spec.serverId);
    expect(env.SPAWNPOINT_SERVER_TOKEN).toBe(spec.env.SPAWNPOINT_SERVER_TOKEN);
    expect(env.SPAWNPOINT_SERVER_TOKEN).toMatch(/^spt_/);
    expect(env.SPAWNPOINT_API_URL).toBe('http://spawnpoint-gateway.spawnpoint.svc:8080/api');
    expect(pod.spec!.initContainers![0].env!.map((e) => e.name)).not.toContain('SPAWNPOINT_SERVER_TOKEN');
  });

  it('escapes $ the way the kubelet unescapes it', () => {
    // The kubelet's expansion: `$$` → `$`, `$(VAR)` → the value; so after literal() only `$$` pairs remain.
    const unescape = (text: string) => text.replace(/\$\$/g, '$');
    for (const text of ['plain', '$(HOME)', '$$', 'a$b', '$($(X))', '$']) expect(unescape(literal(text))).toBe(text);
  });

  it('exposes each port on the node: containerPort the internal port, hostPort the external one', () => {
    const ports = containerPorts(allocated([UDP_GAME, TCP_GAME, UDP_VOICE], 31000));
    expect(ports).toEqual([
      { name: 'game', containerPort: 7777, hostPort: 31000, protocol: 'UDP' },
      { name: 'game-tcp', containerPort: 7778, hostPort: 31001, protocol: 'TCP' },
      { name: 'voice-chat-udp', containerPort: 9000, hostPort: 31002, protocol: 'UDP' },
    ]);
  });

  it('turns any port names into unique IANA service names', () => {
    const names = portNames(['game', 'GAME', 'a_very_long_port_name_indeed', '7777', '--', 'x--y', 'a_very_long_port_name_indeed']);
    expect(names).toEqual(['game', 'game-1', 'a-very-long-por', 'p-7777', 'port', 'x-y', 'a-very-long-p-6']);
    for (const name of names) expect(isIanaSvcName(name)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it('probes the first TCP port for readiness when there is one', () => {
    const pod = podFor(machineSpec({ ports: [UDP_GAME, TCP_GAME, { ...TCP_GAME, name: 'admin', internalPort: 8080 }] }), settings);
    expect(game(pod).readinessProbe).toMatchObject({ tcpSocket: { port: 7778 } });
    expect(init(pod, 'ports-probe')).toBeUndefined();
  });

  it('watches a UDP-only game\'s sockets from a native sidecar in the pod\'s network namespace', () => {
    const pod = podFor(machineSpec({ ports: [UDP_GAME, UDP_VOICE] }), settings);
    expect(game(pod).readinessProbe).toBeUndefined();
    const sidecar = init(pod, 'ports-probe')!;
    expect(sidecar.restartPolicy).toBe('Always');
    expect(sidecar.readinessProbe!.exec!.command).toEqual(['sh', '-c', udpBoundScript(allocated([UDP_GAME, UDP_VOICE]))]);
    // After the fetch, so it starts with the game.
    expect(pod.spec!.initContainers!.map((c) => c.name)).toEqual(['fetch', 'ports-probe']);
  });

  it('has no readiness check for a game without ports: running is ready', () => {
    const pod = podFor(machineSpec({ ports: [] }), settings);
    expect(game(pod).readinessProbe).toBeUndefined();
    expect(init(pod, 'ports-probe')).toBeUndefined();
  });

  describe('the UDP probe script, run against this machine\'s /proc', () => {
    const run = promisify(execFile);
    const probe = async (ports: number[]) => run('sh', ['-c', udpBoundScript(allocated(ports.map((p) => ({ ...UDP_GAME, internalPort: p }))))])
      .then(() => true, () => false);

    it('passes once every UDP port is bound, fails while one is not', async () => {
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
      const other = dgram.createSocket('udp6');
      await new Promise<void>((resolve) => other.bind(0, '::', resolve));
      try {
        const bound = socket.address().port;
        const bound6 = other.address().port;
        expect(await probe([bound])).toBe(true);
        expect(await probe([bound, bound6])).toBe(true);
        const free = await freeUdpPort();
        expect(await probe([bound, free])).toBe(false);
      } finally {
        socket.close();
        other.close();
      }
    });
  });

  it.each([
    ['an unknown region', { region: 'mars-1' }, /region mars-1 has no cluster/],
    ['an unknown size', { computeSize: 'huge' }, /unknown compute size huge/],
    ['a server id that cannot name a pod', { serverId: 'Server_1' }, /server id must be lowercase/],
  ])('refuses %s', (_, input, error) => {
    expect(() => podFor(machineSpec(input), settings)).toThrow(error);
  });

  it('refuses a zip build without an artifact URL, an executable outside the build, or both build kinds', () => {
    const zip = machineSpec({ build: 'zip' });
    expect(() => podFor({ ...zip, artifactUrl: undefined }, settings)).toThrow(/needs an artifactUrl/);
    expect(() => podFor({ ...zip, executablePath: '../../bin/sh' }, settings)).toThrow(/outside the build directory/);
    expect(() => podFor({ ...zip, executablePath: '/bin/sh' }, settings)).toThrow(/outside the build directory/);
    expect(() => podFor({ ...zip, image: 'x:1' }, settings)).toThrow(/both an image and an artifact URL/);
    expect(game(podFor({ ...zip, executablePath: './bin/../server' }, settings)).command).toEqual(['/game/server']);
  });

  it('runs as a non-root user when configured, with low ports still bindable', () => {
    const pod = podFor(machineSpec({ ports: [{ ...TCP_GAME, internalPort: 80 }] }), testSettings({ runAsNonRoot: true, runAsUser: 4242 }));
    expect(pod.spec!.securityContext).toEqual({
      runAsNonRoot: true, runAsUser: 4242, runAsGroup: 4242, fsGroup: 4242, seccompProfile: { type: 'RuntimeDefault' },
      sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }],
    });
    expect(podFor(machineSpec(), testSettings({ runAsNonRoot: true })).spec!.securityContext!.sysctls).toBeUndefined();
  });
});

describe('manifest validation', () => {
  it('rejects a pod the schema forbids', async () => {
    const pod = podFor(machineSpec(), settings) as any;
    pod.spec.containers[0].ports[0].containerPort = '7777';
    pod.spec.restartPolicy = 'Sometimes';
    await expect(validateManifest(pod)).rejects.toThrow(/containerPort must be integer/);
  });

  it('rejects what only the API server checks: port names, label values, hostPort range, volume references', async () => {
    const pod = podFor(machineSpec(), settings) as any;
    pod.spec.containers[0].ports[0].name = 'far-too-long-port-name';
    pod.spec.containers[0].ports[1].hostPort = 70000;
    pod.metadata.labels['spawnpoint.dev/project'] = 'has spaces';
    pod.spec.containers[0].volumeMounts[0].name = 'nope';
    const problems = apiServerProblems(pod);
    expect(problems).toHaveLength(4);
    await expect(validateManifest(pod)).rejects.toThrow(/not an IANA_SVC_NAME/);
  });
});

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}
