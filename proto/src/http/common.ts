// Answers every route shares: the error body and the health report.
import { Custom, Enum, Int, NestedArray, Str } from '../validation/fields';
import { ProjectionHealth } from '../parked';

const ISSUES_SCHEMA = {
  anyOf: [
    { type: 'string' },
    {
      type: 'array',
      items: {
        type: 'object', required: ['loc', 'msg', 'type'],
        properties: { loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, type: { type: 'string' } },
      },
    },
  ],
};
export class ErrorBody {
  @Str() error!: string;
  @Int() status!: number;
  @Custom(ISSUES_SCHEMA, { name: 'detail', test: () => true, msg: '' }, { optional: true }) detail?: unknown;
}

const CHECKS_SCHEMA = { type: 'object', additionalProperties: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' }, detail: { type: 'string' } } } };
export class Health {
  @Enum(['ok', 'degraded']) status!: 'ok' | 'degraded';
  @Str() version!: string;
  @Custom(CHECKS_SCHEMA, { name: 'checks', test: () => true, msg: '' }) checks!: Record<string, { ok: boolean; detail?: string }>;
  @NestedArray(() => ProjectionHealth, {
    optional: true, description: 'read models: parked events and lag (degraded with 200 when one has parked events or lags over 30 s)',
  }) projections?: ProjectionHealth[];
}

/** A gateway's own probes (`/api/health/live`, `/api/health/ready`): what it needs to serve, not the services. */
export class Probe {
  @Enum(['ok', 'unavailable']) status!: 'ok' | 'unavailable';
  @Custom(CHECKS_SCHEMA, { name: 'checks', test: () => true, msg: '' }, { optional: true }) checks?: Record<string, { ok: boolean; detail?: string }>;
}
