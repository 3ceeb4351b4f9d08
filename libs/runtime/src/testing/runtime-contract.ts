// The behaviour every GameRuntime adapter must show, checked against a real sample game server
// (examples/game-server). Run it from an adapter's *.int.spec.ts with describeRuntimeContract().
import { buildGameEnv } from '../game-env';
import type { AllocatedPort, GameRuntime, MachineSpec, PortSpec } from '../runtime';
import { tcpRefused, tcpRoundTrip, udpRoundTrip } from './echo-clients';
import { EventRecorder } from './event-recorder';

export interface RuntimeContractOptions {
  startupTimeoutMs?: number;
}

export interface RuntimeContractFixture {
  runtime: GameRuntime;
  /** A spec that runs the sample game; the suite sets args and env itself. */
  makeSpec(serverId: string, ports: AllocatedPort[]): MachineSpec;
  /** Frees what the fixture made besides the runtime (the suite closes the runtime). */
  cleanup(): Promise<void>;
  /** Whether the game's process, by the pid it logs, is gone. Omit where this host cannot see it. */
  processGone?(pid: number): Promise<boolean>;
}

export type RuntimeContractFactory = (options: RuntimeContractOptions) => Promise<RuntimeContractFixture>;

const GAME_PORTS: PortSpec[] = [
  { name: 'game', internalPort: 7777, protocol: 'udp', tlsEnabled: false },
  { name: 'game_tcp', internalPort: 7778, protocol: 'tcp', tlsEnabled: false },
];

let serverCount = 0;
const newServerId = () => `contract-${process.pid}-${++serverCount}`;

export function describeRuntimeContract(name: string, factory: RuntimeContractFactory): void {
  describe(`GameRuntime contract: ${name}`, () => {
    let fixture: RuntimeContractFixture;
    let events: EventRecorder;

    /** Allocate the game's ports and start the sample game with them. */
    async function launch(args: string[] = [], on = fixture) {
      const serverId = newServerId();
      const ports = await on.runtime.allocatePorts(serverId, GAME_PORTS);
      const env = buildGameEnv({
        instanceId: serverId, matchId: `match-of-${serverId}`, region: 'test', computeSize: 'small',
        versionTag: 'v1', version: 1, customData: { mode: 'contract' }, ports,
        projectEnv: {}, requestEnv: {},
      });
      await on.runtime.start({ ...on.makeSpec(serverId, ports), args, env });
      const port = (protocol: string) => ports.find((p) => p.protocol === protocol)!;
      return { serverId, tcp: port('tcp'), udp: port('udp') };
    }

    beforeAll(async () => {
      fixture = await factory({});
      events = new EventRecorder(fixture.runtime);
    });

    // close() also stops whatever a failed test left running.
    afterAll(async () => {
      events?.stop();
      await fixture?.runtime.close();
      await fixture?.cleanup();
    });

    it('allocates distinct ports to concurrent allocations', async () => {
      const ids = Array.from({ length: 6 }, newServerId);
      const allocations = await Promise.all(ids.map((id) => fixture.runtime.allocatePorts(id, GAME_PORTS)));
      try {
        const all = allocations.flat();
        expect(new Set(all.map((p) => p.externalPort)).size).toBe(all.length);
        for (const allocation of allocations) {
          expect(allocation.map((p) => [p.name, p.protocol])).toEqual(GAME_PORTS.map((p) => [p.name, p.protocol]));
          for (const port of allocation) {
            expect(port.host).toEqual(expect.any(String));
            expect(port.bindPort).toEqual(expect.any(Number));
          }
        }
      } finally {
        await Promise.all(ids.map((id) => fixture.runtime.releasePorts(id)));
      }
    });

    describe('a running game', () => {
      let game: Awaited<ReturnType<typeof launch>>;

      beforeAll(async () => {
        game = await launch(['--label', 'two words', '--empty', '']);
        await events.portsBound(game.serverId);
      });

      afterAll(async () => {
        await fixture.runtime.stop(game.serverId, 1000);
        await fixture.runtime.releasePorts(game.serverId);
      });

      it('is running once it has bound its TCP and UDP ports', () => {
        expect(fixture.runtime.running()).toContain(game.serverId);
        expect(events.count(game.serverId, 'ports_bound')).toBe(1);
      });

      it('serves TCP on host:externalPort', async () => {
        expect(await tcpRoundTrip(game.tcp.host, game.tcp.externalPort, 'hello tcp')).toBe('echo: hello tcp');
      });

      it('serves UDP on host:externalPort', async () => {
        expect(await udpRoundTrip(game.udp.host, game.udp.externalPort, 'hello udp')).toBe('echo: hello udp');
      });

      it('streams its logs with levels', async () => {
        expect(await events.log(game.serverId, /^INFO listening udp/)).toMatchObject({ stream: 'stdout', level: 'info' });
        expect(await events.log(game.serverId, /^WARN sample warning/)).toMatchObject({ stream: 'stdout', level: 'warn' });
        expect(await events.log(game.serverId, /^ERROR sample error line$/)).toMatchObject({ stream: 'stderr', level: 'error' });
      });

      it('gets the environment contract', async () => {
        const line = await events.log(game.serverId, /^INFO game server /);
        expect(line.message).toBe(`INFO game server ${game.serverId} starting, match match-of-${game.serverId}`);
        await events.log(game.serverId, new RegExp(`^INFO listening udp ${game.udp.bindPort} tcp ${game.tcp.bindPort}$`));
      });

      it('gets its args unchanged', async () => {
        expect((await events.log(game.serverId, /^INFO argv /)).message)
          .toBe(`INFO argv ${JSON.stringify(['--label', 'two words', '--empty', ''])}`);
      });

      it('reports metrics', async () => {
        const metrics = await fixture.runtime.metrics(game.serverId);
        expect(metrics).toMatchObject({ cpu_percent: expect.any(Number), memory_bytes: expect.any(Number) });
        expect(metrics!.cpu_percent).toBeGreaterThanOrEqual(0);
        expect(metrics!.memory_bytes).toBeGreaterThan(0);
        expect(new Date(metrics!.sampled_at).toISOString()).toBe(metrics!.sampled_at);
      });
    });

    it('stops a game: exited with SHUTDOWN_SIGNAL, and its ports serve nothing any more', async () => {
      const game = await launch();
      await events.portsBound(game.serverId);
      await fixture.runtime.stop(game.serverId);
      expect(await events.exited(game.serverId, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL', exitCode: 0, signal: null });
      await events.log(game.serverId, /^INFO shutting down/, 0);
      expect(fixture.runtime.running()).not.toContain(game.serverId);
      await fixture.runtime.stop(game.serverId); // idempotent
      await fixture.runtime.releasePorts(game.serverId);
      expect(await tcpRefused(game.tcp.host, game.tcp.externalPort)).toBe(true);
      expect(await udpRoundTrip(game.udp.host, game.udp.externalPort, 'anyone?', 300)).toBeNull();
      expect(events.count(game.serverId, 'exited')).toBe(1);
    });

    it('reports a game that exits by itself as PROCESS_EXITED with its exit code', async () => {
      const game = await launch(['--exit-after-ms', '300']);
      expect(await events.exited(game.serverId)).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: 3, signal: null });
      expect(fixture.runtime.running()).not.toContain(game.serverId);
      expect(events.count(game.serverId, 'exited')).toBe(1);
    });

    it('kills a game that does not bind its ports in time: STARTUP_FAILURE_TIMEOUT', async () => {
      const impatient = await factory({ startupTimeoutMs: 1500 });
      const impatientEvents = new EventRecorder(impatient.runtime);
      try {
        const startedAt = Date.now();
        const game = await launch(['--no-bind'], impatient);
        const pid = Number(/^INFO pid (\d+)$/.exec((await impatientEvents.log(game.serverId, /^INFO pid \d+$/)).message)![1]);
        const exited = await impatientEvents.exited(game.serverId, 10_000);
        expect(exited.reason).toBe('STARTUP_FAILURE_TIMEOUT');
        expect(exited.at.getTime() - startedAt).toBeGreaterThanOrEqual(1400);
        expect(impatientEvents.count(game.serverId, 'ports_bound')).toBe(0);
        expect(impatient.runtime.running()).not.toContain(game.serverId);
        if (impatient.processGone) expect(await impatient.processGone(pid)).toBe(true);
      } finally {
        impatientEvents.stop();
        await impatient.runtime.close();
        await impatient.cleanup();
      }
    });

    it('has no metrics for an unknown server, and stopping one is a no-op', async () => {
      expect(await fixture.runtime.metrics('no-such-server')).toBeNull();
      await expect(fixture.runtime.stop('no-such-server')).resolves.toBeUndefined();
    });
  });
}
