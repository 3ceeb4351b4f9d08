// The process runtime's spawn as a span of the start request that asked for it, with the game's pid; a
// spawn that fails is marked; a start outside a trace opens none. Real games (sh scripts) and spawner.
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { installTracing, type TracingHarness } from '../../../messaging/src/testing/tracing-harness';
import { EventRecorder } from '../testing/event-recorder';
import { createScriptBuild, type TempBuild } from '../testing/sample-game';
import { ProcessRuntime } from './process-runtime';

describe('ProcessRuntime spans', () => {
  let runtime: ProcessRuntime;
  let build: TempBuild;
  let tracing: TracingHarness;
  let events: EventRecorder;

  beforeAll(async () => {
    runtime = new ProcessRuntime({ portRange: [22400, 22449] });
    events = new EventRecorder(runtime);
    build = await createScriptBuild('echo "game $$ up"; sleep 30');
  });
  afterAll(async () => {
    events.stop();
    await runtime.close();
    await build.remove();
  });
  beforeEach(() => { tracing = installTracing(); });
  afterEach(() => tracing.dispose());

  const spec = (serverId: string, executablePath = build.executablePath) => ({
    serverId, projectId: 'p', buildDir: build.buildDir, executablePath, args: [], env: {}, ports: [], computeSize: 'small', region: 'local',
  });
  const inTrace = (fn: () => Promise<unknown>) => trace.getTracer('test').startActiveSpan('start request', async (span) => {
    try {
      await fn();
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
  const spawns = () => tracing.exporter.getFinishedSpans().filter((s) => s.name === 'runtime spawn');

  it('records the spawn under the start request, with the game\'s pid', async () => {
    const parent = await inTrace(() => runtime.start(spec('spawn-1')));
    const line = await events.log('spawn-1', /^game \d+ up/);
    const pid = Number(/game (\d+) up/.exec(line.message)![1]);
    const [span] = spawns();
    expect(span.parentSpanContext?.spanId).toBe(parent);
    expect(span.attributes).toMatchObject({ 'spawnpoint.server_id': 'spawn-1', 'process.executable.name': 'server', 'process.pid': pid });
    await runtime.stop('spawn-1', 100);
  });

  it('marks a spawn that fails', async () => {
    await inTrace(() => runtime.start(spec('spawn-2', 'no-such-file')).catch(() => undefined));
    const [span] = spawns();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('opens none for a start outside a trace', async () => {
    await runtime.start(spec('spawn-3'));
    await runtime.stop('spawn-3', 100);
    expect(spawns()).toEqual([]);
  });
});
