// An OTLP/HTTP trace receiver for tests: a real node:http server on 127.0.0.1 taking the exporter's
// POST /v1/traces (OTLP JSON, as @opentelemetry/exporter-trace-otlp-http sends it; gzip accepted) and
// keeping every span with its service's resource, flattened to plain values.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** OTLP's span kinds (the API's SpanKind + 1). */
export const OTLP_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  /** resource service.name */
  service: string;
  resource: Record<string, unknown>;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  /** 0 unset, 1 ok, 2 error */
  status: number;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received (each a batch). */
  requests: number;
  inTrace(traceId: string): ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue { key: string; value: OtlpValue }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number;
  attributes?: OtlpKeyValue[]; links?: Array<{ traceId: string; spanId: string }>; status?: { code?: number };
}
interface OtlpRequest {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

function value(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

const attributes = (list: OtlpKeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, value(kv.value)]));

/** OTLP JSON ids are hex; an encoder that sends protobuf-JSON's base64 is read too. */
function hexId(id: string | undefined, bytes: number): string {
  if (!id) return '';
  if (id.length === bytes * 2 && /^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        const body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as OtlpRequest;
        state.requests++;
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: hexId(s.traceId, 16), spanId: hexId(s.spanId, 8), parentSpanId: hexId(s.parentSpanId, 8), name: s.name, kind: s.kind ?? 0,
                service: String(resource['service.name']), resource, attributes: attributes(s.attributes),
                links: (s.links ?? []).map((l) => ({ traceId: hexId(l.traceId, 16), spanId: hexId(l.spanId, 8) })), status: s.status?.code ?? 0,
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get requests() { return state.requests; },
    inTrace: (traceId) => spans.filter((s) => s.traceId === traceId),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The ancestors of `span` within `spans`, nearest first (stops where a parent is not among them). */
export function ancestors(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: ReceivedSpan[] = [];
  for (let at = byId.get(span.parentSpanId); at && !out.includes(at); at = byId.get(at.parentSpanId)) out.push(at);
  return out;
}
