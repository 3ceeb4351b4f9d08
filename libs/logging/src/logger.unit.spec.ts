// The logger: the fields of every line, levels from LOG_LEVEL, trace ids from the active span of a real
// registered tracer provider, component loggers following the root, and the pretty format.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { configureLogging, createLogger, logger, replaceRootLogger } from './logger';
import { prettyLine } from './pretty';
import { LOG_LEVELS, logFormatFrom, logLevelFrom, switchFrom } from './settings';
import { captureLogs } from './testing';

function memory(): { lines: string[]; destination: { write(line: string): void }; records(): Record<string, unknown>[] } {
  const lines: string[] = [];
  return { lines, destination: { write: (line) => void lines.push(line) }, records: () => lines.map((l) => JSON.parse(l)) };
}

describe('log lines', () => {
  afterEach(() => replaceRootLogger(null));

  it('are one JSON object a line with time, level name, service, version, msg and the call\'s fields', () => {
    const out = memory();
    createLogger({ service: 'servers', version: '1.2.3', destination: out.destination }).info({ project_id: 'p1', count: 2 }, 'reconciled');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0].endsWith('\n')).toBe(true);
    const [line] = out.records();
    expect(line).toEqual({ level: 'info', time: expect.any(String), service: 'servers', version: '1.2.3', msg: 'reconciled', project_id: 'p1', count: 2 });
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
  });

  it('serialises an error under err with its type, message and stack', () => {
    const logs = captureLogs();
    try {
      logger('bus').error({ err: new TypeError('boom') }, 'bus: handler for servers.get failed');
      const [line] = logs.records();
      expect(line).toMatchObject({ level: 'error', component: 'bus', msg: 'bus: handler for servers.get failed', err: { type: 'TypeError', message: 'boom' } });
      expect((line.err as { stack: string }).stack).toMatch(/^TypeError: boom\n\s+at /);
    } finally {
      logs.restore();
    }
  });

  it('come from component loggers made before the root was configured, with the new root\'s fields', () => {
    const early = logger('pools').child({ project_id: 'p9' });
    const first = memory();
    configureLogging({ service: 'servers', version: '2.0.0', destination: first.destination }, {});
    early.warn('pools: listing pools failed');
    const second = memory();
    configureLogging({ service: 'standalone', destination: second.destination }, {});
    early.warn('again');
    expect(first.records()).toEqual([expect.objectContaining({ service: 'servers', version: '2.0.0', component: 'pools', project_id: 'p9', level: 'warn' })]);
    expect(second.records()).toEqual([expect.objectContaining({ service: 'standalone', component: 'pools', project_id: 'p9', msg: 'again' })]);
  });
});

describe('jsonLine (a hot path\'s line as JSON text)', () => {
  afterEach(() => replaceRootLogger(null));

  it('writes the same line pino writes for the same fields, and respects the level', () => {
    const out = memory();
    configureLogging({ service: 'gateway', version: '1.0.0', destination: out.destination }, { LOG_LEVEL: 'info' });
    const log = logger('http').child({ listener: 'api' });
    const fields = { method: 'GET', route: '/api/v3/servers/:instance_id', status: 200, duration_ms: 1.25, request_id: 'r-1', project_id: 'p "1"' };
    log.info(fields, 'GET /api/v3/servers/:instance_id 200');
    log.jsonLine('info', JSON.stringify(fields).slice(1, -1), 'GET /api/v3/servers/:instance_id 200');
    log.jsonLine('debug', '"dropped":true', 'below the level');
    expect(out.lines).toHaveLength(2);
    const [viaPino, viaText] = out.records();
    expect(Object.keys(viaText)).toEqual(Object.keys(viaPino));
    expect({ ...viaText, time: 'x' }).toEqual({ ...viaPino, time: 'x' });
    expect(out.lines[1].endsWith('}\n')).toBe(true);
  });
});

describe('levels', () => {
  afterEach(() => replaceRootLogger(null));

  it('LOG_LEVEL=warn drops trace, debug and info lines and keeps warn, error and fatal', () => {
    const out = memory();
    configureLogging({ service: 'gateway', destination: out.destination }, { LOG_LEVEL: 'warn' });
    const log = logger('http');
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) log[level](`a ${level} line`);
    expect(out.records().map((r) => r.level)).toEqual(['warn', 'error', 'fatal']);
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('warn')).toBe(true);
  });

  it('defaults to info; debug shows debug lines; silent shows none', () => {
    const counts: Record<string, number> = {};
    for (const LOG_LEVEL of [undefined, 'debug', 'silent', 'TRACE']) {
      const out = memory();
      configureLogging({ service: 'x', destination: out.destination }, LOG_LEVEL === undefined ? {} : { LOG_LEVEL });
      for (const level of ['trace', 'debug', 'info', 'error'] as const) logger('c')[level]('line');
      counts[String(LOG_LEVEL)] = out.lines.length;
    }
    expect(counts).toEqual({ undefined: 2, debug: 3, silent: 0, TRACE: 4 });
  });

  it('accepts exactly the level names; anything else is refused but leaves a working logger at info', () => {
    expect(LOG_LEVELS.map((l) => logLevelFrom({ LOG_LEVEL: ` ${l.toUpperCase()} ` }))).toEqual([...LOG_LEVELS]);
    expect(logLevelFrom({ LOG_LEVEL: '' })).toBe('info');
    expect(() => logLevelFrom({ LOG_LEVEL: 'verbose' })).toThrow('LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "verbose")');
    const out = memory();
    expect(() => configureLogging({ service: 'x', destination: out.destination }, { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
    logger('c').debug('dropped');
    logger('c').info('kept');
    expect(out.records().map((r) => r.msg)).toEqual(['kept']);
  });

  it('reads LOG_FORMAT (a terminal gets pretty by default) and true/false switches', () => {
    expect([logFormatFrom({}, false), logFormatFrom({}, true), logFormatFrom({ LOG_FORMAT: 'JSON' }, true), logFormatFrom({ LOG_FORMAT: 'pretty' }, false)])
      .toEqual(['json', 'pretty', 'json', 'pretty']);
    expect(() => logFormatFrom({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be json or pretty (got "xml")');
    expect(['true', 'ON', '1', 'no', 'false', ''].map((v) => switchFrom({ X: v }, 'X', true))).toEqual([true, true, true, false, false, true]);
    expect(() => switchFrom({ X: 'maybe' }, 'X', true)).toThrow('X must be true or false (got "maybe")');
  });
});

describe('trace ids', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });

  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('every line written inside an active span carries its trace_id and span_id, across awaits; none outside', async () => {
    const logs = captureLogs();
    try {
      const log = logger('servers');
      log.info('before');
      const ids = await trace.getTracer('test').startActiveSpan('bus servers.start', async (span) => {
        log.info('inside');
        await new Promise((r) => setTimeout(r, 5));
        log.child({ project_id: 'p1' }).warn('after an await');
        span.end();
        return span.spanContext();
      });
      log.info('after');
      const records = logs.records();
      expect(records.map((r) => [r.msg, r.trace_id, r.span_id])).toEqual([
        ['before', undefined, undefined],
        ['inside', ids.traceId, ids.spanId],
        ['after an await', ids.traceId, ids.spanId],
        ['after', undefined, undefined],
      ]);
      expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(exporter.getFinishedSpans().map((s) => s.spanContext().traceId)).toContain(ids.traceId);
    } finally {
      logs.restore();
    }
  });

  it('a trace id the line gives itself wins over the active span\'s', () => {
    const logs = captureLogs();
    try {
      trace.getTracer('test').startActiveSpan('outer', (span) => {
        logger('http').info({ trace_id: 'f'.repeat(32) }, 'access');
        span.end();
      });
      expect(logs.records()[0].trace_id).toBe('f'.repeat(32));
    } finally {
      logs.restore();
    }
  });
});

describe('pretty format', () => {
  it('shows time, level, service and message, then the other fields, and an error\'s stack indented', () => {
    const json = JSON.stringify({ level: 'error', time: '2026-01-02T03:04:05.678Z', service: 'gateway', version: '0.1.0', component: 'http', msg: 'GET /api/health 500', status: 500, err: { type: 'Error', message: 'x', stack: 'Error: x\n    at f (a.js:1:2)' } });
    expect(prettyLine(`${json}\n`)).toBe('03:04:05.678 ERROR gateway: GET /api/health 500  component=http status=500\n    Error: x\n        at f (a.js:1:2)\n');
    expect(prettyLine('not json')).toBe('not json\n');
  });
});
