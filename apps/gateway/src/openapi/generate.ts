// Builds the OpenAPI 3.1 document from the @Doc records, the proto contract classes (the same field
// declarations the gateway validates with) and Nest's route metadata.
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { fieldsOf, schemaOf, type ContractClass } from '@spawnpoint/proto';
import { docRecords, type DocSchema } from './doc';

const DIALECT = { $schema: 'https://json-schema.org/draft/2020-12/schema' };
/** Inputs refuse unknown fields (additionalProperties: false); answers may grow new ones. */
const jsonSchema = (s: DocSchema, input: boolean) => (typeof s === 'function' ? { ...DIALECT, ...schemaOf(s, input) } : { ...DIALECT, ...s });

function joinPath(...parts: string[]): string {
  const p = '/' + parts.map((x) => x.replace(/^\/|\/$/g, '')).filter(Boolean).join('/');
  return p.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function parameters(where: 'path' | 'query', contract?: ContractClass) {
  if (!contract) return [];
  const props = schemaOf(contract, true).properties as Record<string, Record<string, unknown>>;
  return fieldsOf(contract).map(([name, f]) => ({ name, in: where, required: where === 'path' || f.required, schema: { ...DIALECT, ...props[name] } }));
}

/** Every write may carry Idempotency-Key (apps/gateway/src/http/idempotency.ts). */
const IDEMPOTENT_VERBS = new Set(['post', 'patch', 'delete']);
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  description: 'Retry safely: within 24 h the same key with the same request answers the first answer again (another request: 422; still running: 409).',
};

export function generateOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { target, method, spec } of docRecords) {
    const handler = (target as { prototype: Record<string, unknown> }).prototype[method] as object;
    const url = joinPath(Reflect.getMetadata(PATH_METADATA, target) ?? '', Reflect.getMetadata(PATH_METADATA, handler) ?? '');
    const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase();
    const headers = Object.entries(spec.headers ?? {}).map(([name, h]) => ({ name, in: 'header', required: h.required, description: h.description, schema: { type: 'string' } }));
    const security = spec.auth === 'client' || spec.auth === 'server' ? [{ apiKey: [] }] : spec.auth === 'admin' ? [{ adminToken: [] }]
      : spec.auth === 'server-token' ? [{ serverToken: [] }, { serverTokenHeader: [] }] : [];
    const streamed = !spec.body && spec.bodyContentType !== undefined;
    paths[url] ??= {};
    paths[url][verb] = {
      summary: spec.summary,
      tags: spec.tags,
      operationId: `${(target as { name: string }).name.replace(/Controller$/, '')}_${method}`,
      ...(security.length ? { security } : { security: [] }),
      ...(spec.auth === 'server' ? { description: 'Requires the server key (pf_…); a client key gets 403.' } : {}),
      parameters: [...parameters('path', spec.params), ...parameters('query', spec.query), ...headers, ...(IDEMPOTENT_VERBS.has(verb) && !streamed ? [IDEMPOTENCY_KEY] : [])],
      ...(spec.body
        // A body whose fields are all optional may be left out (it reads as {}).
        ? { requestBody: { required: fieldsOf(spec.body).some(([, f]) => f.required), content: { [spec.bodyContentType ?? 'application/json']: { schema: jsonSchema(spec.body, true) } } } }
        : spec.bodyContentType
          ? { requestBody: { required: true, content: { [spec.bodyContentType]: { schema: spec.bodySchema ?? { type: 'string', format: 'binary' } } } } }
          : {}),
      responses: Object.fromEntries(Object.entries(spec.responses).map(([status, r]) => [status, {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: jsonSchema(r.schema, false) } } } : {}),
      }])),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Spawnpoint API', version, description: 'Game server hosting, lobbies and matchmaking. Paths are relative to the server root; the interface calls /api the base URL.' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'api-key', description: 'Server key (pf_…) or client key (pfclient_…)' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'SPAWNPOINT_ADMIN_TOKEN' },
        serverToken: { type: 'http', scheme: 'bearer', description: "A game machine's SPAWNPOINT_SERVER_TOKEN (game API only, docs/game-server-api.md)" },
        serverTokenHeader: { type: 'apiKey', in: 'header', name: 'x-server-token', description: 'The same token in its own header' },
      },
    },
    paths,
  };
}
