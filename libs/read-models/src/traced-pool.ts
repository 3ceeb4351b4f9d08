// The read models' pg pool with a CLIENT span per statement (db.system postgresql, db.operation), under
// whatever sampled span is open: Prisma's queries (its pg adapter runs on this pool) and the plain-SQL hot
// paths alike. A statement outside a trace (sweeps, pollers) opens none, and without a registered
// OpenTelemetry SDK no span is ever open, so a statement costs one lookup more.
import { Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Client, Pool, PoolConfig } from 'pg';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.read-models');
const MAX_STATEMENT = 2_000;

const recording = () => trace.getActiveSpan()?.isRecording() === true;

/** A statement's span attributes; the text is parameterised (values, ids among them, are not recorded). */
export function statementAttributes(text: string, database?: string): Attributes {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  const table = /\b(?:FROM|INTO|UPDATE|JOIN)\s+((?:"?[\w$]+"?\.)?"?[\w$]+"?)/i.exec(text)?.[1]?.replace(/"/g, '');
  return {
    'db.system': 'postgresql', 'db.system.name': 'postgresql', 'db.operation': operation, 'db.operation.name': operation,
    'db.statement': text.length > MAX_STATEMENT ? `${text.slice(0, MAX_STATEMENT)}…` : text,
    ...(table ? { 'db.collection.name': table } : {}),
    ...(database ? { 'db.name': database, 'db.namespace': database } : {}),
  };
}

class TracedClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    const query = this.query;
    // Any of pg's call shapes: (text|config, values?, callback?); a submittable (cursor, stream) goes through as is.
    this.query = ((...args: unknown[]) => {
      const first = args[0] as { text?: string; submit?: unknown } | string | undefined;
      if (!recording() || (typeof first === 'object' && first !== null && typeof first.submit === 'function')) return (query as (...a: unknown[]) => unknown).apply(this, args);
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      const attributes = statementAttributes(text, this.database);
      const span = tracer().startSpan(`${attributes['db.operation']}${attributes['db.collection.name'] ? ` ${attributes['db.collection.name']}` : ''}`, { kind: SpanKind.CLIENT, attributes });
      const end = (err?: unknown) => {
        if (err) {
          span.recordException(err instanceof Error ? err : String(err));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      };
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as (err: unknown, result: unknown) => void;
        args[last] = (err: unknown, result: unknown) => {
          end(err);
          callback(err, result);
        };
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      }
      const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      return result.then((r) => {
        end();
        return r;
      }, (err: unknown) => {
        end(err);
        throw err;
      });
    }) as Client['query'];
  }
}

/**
 * A pool of TracedClients. pg-pool hands a waiting checkout its client from another caller's release, in
 * that caller's async context: the callbacks are bound to the context they were asked in, so a statement's
 * span has the right parent however busy the pool is.
 */
export function tracedPool(config: PoolConfig): Pool {
  const pool = new Pool({ ...config, Client: TracedClient });
  // Its errors: createReadModels makes it outageSafe (outage-safe-pool.ts).
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  pool.connect = ((callback?: unknown) =>
    connect(typeof callback === 'function' && recording() ? context.bind(context.active(), callback as () => void) : callback)) as Pool['connect'];
  return pool;
}
