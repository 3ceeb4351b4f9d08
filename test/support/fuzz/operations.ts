// The operations to fuzz: every operation of the OpenAPI document the gateway serves, and the legacy
// lobby routes (a second listener, described here from docs/api.md "Legacy lobby API").
import { JsonSchema } from './json-schema';

export interface Param { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }

export interface Operation {
  /** 'api' is the gateway's origin (paths start with /api); 'legacy' the legacy listener. */
  listener: 'api' | 'legacy';
  method: string;
  /** The path template, e.g. /api/v3/servers/{instance_id}. */
  path: string;
  params: Param[];
  body?: { required: boolean; contentType: string; schema: JsonSchema };
  /** serverToken: the game API (a game machine's own token, ADR-0016). */
  auth: 'apiKey' | 'admin' | 'serverToken' | 'none';
  /** The status of a validation refusal when it is not 422 (the legacy matchmaker documents 400). */
  invalidStatus?: number;
}

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, unknown>[];
}

export function operationsOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const security = Object.keys(op.security?.[0] ?? {})[0];
      const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      out.push({
        listener: 'api', method: method.toUpperCase(), path,
        params: (op.parameters ?? []).map((p) => ({ name: p.name, in: p.in as Param['in'], required: p.required ?? false, schema: p.schema ?? { type: 'string' } })),
        body: contentType ? { required: op.requestBody!.required ?? false, contentType, schema: media?.schema ?? {} } : undefined,
        auth: security === 'adminToken' ? 'admin' : security === 'apiKey' ? 'apiKey' : security === 'serverToken' ? 'serverToken' : 'none',
      });
    }
  }
  return out;
}

const playerId: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_.:@-]{1,128}$' };
const configName: Param = { name: 'name', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 } };
const uuid: JsonSchema = { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' };
const bool: JsonSchema = { type: 'boolean' };
const flag: JsonSchema = { type: 'string', enum: ['true', 'false', '1', '0'] };
const object: JsonSchema = { type: 'object', additionalProperties: {} };
const lobbyFields: Record<string, JsonSchema> = {
  name: { anyOf: [{ type: 'string', maxLength: 255 }, { type: 'null' }] },
  maxPlayers: { type: 'integer', minimum: 1, maximum: 100 },
  isPrivate: bool, useInviteCode: bool, allowLateJoin: bool,
  region: { type: 'string', enum: ['us-east', 'eu-west'] },
};
const settings: Record<string, JsonSchema> = { ...lobbyFields, settings: object };
/** The legacy API ignores unknown body fields (as the hosted service does), so no "unknown field" cases. */
const loose = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: 'object', properties, required });
const joinBody = loose({ playerId, metadata: object }, ['playerId']);
const json = (schema: JsonSchema, required = true) => ({ required, contentType: 'application/json', schema });
const lobbyId: Param = { name: 'id', in: 'path', required: true, schema: uuid };

export const LEGACY_OPERATIONS: Operation[] = [
  { listener: 'legacy', method: 'GET', path: '/lobbies', auth: 'apiKey', params: [configName, { name: 'public', in: 'query', required: false, schema: flag }, { name: 'publicOnly', in: 'query', required: false, schema: flag }] },
  { listener: 'legacy', method: 'POST', path: '/lobbies', auth: 'apiKey', params: [configName], body: json(loose({ ...settings, host: playerId }, ['host'])) },
  { listener: 'legacy', method: 'GET', path: '/lobbies/{id}', auth: 'apiKey', params: [{ name: 'id', in: 'path', required: true, schema: playerId }, configName] },
  {
    listener: 'legacy', method: 'PUT', path: '/lobbies/{id}', auth: 'apiKey', params: [lobbyId, configName],
    body: json(loose({
      ...lobbyFields, requesterId: playerId, host: playerId, status: { type: 'string', enum: ['waiting', 'in_game', 'finished'] }, settings: loose(settings, []), playerState: object,
      targetPlayerId: playerId, matchmaking: loose({ action: { type: 'string', enum: ['start', 'cancel'] }, mode: { type: 'string', minLength: 1, maxLength: 64 } }, ['action']),
    }, ['requesterId'])),
  },
  // The fixtures' key is the server key, which may send no body (an admin delete): only invalid bodies are sent.
  { listener: 'legacy', method: 'DELETE', path: '/lobbies/{id}', auth: 'apiKey', params: [lobbyId, configName], body: json(loose({ playerId }, ['playerId']), false) },
  { listener: 'legacy', method: 'GET', path: '/lobbies/{id}/players', auth: 'apiKey', params: [lobbyId, configName] },
  { listener: 'legacy', method: 'POST', path: '/lobbies/{id}/players', auth: 'apiKey', params: [lobbyId, configName], body: json(joinBody) },
  { listener: 'legacy', method: 'POST', path: '/lobbies/{id}/heartbeat', auth: 'apiKey', params: [lobbyId, configName], body: json(loose({ playerId }, ['playerId'])) },
  { listener: 'legacy', method: 'POST', path: '/lobbies/code/{code}/players', auth: 'apiKey', params: [{ name: 'code', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }, configName], body: json(joinBody) },
  {
    listener: 'legacy', method: 'DELETE', path: '/lobbies/{id}/players/{playerId}', auth: 'apiKey',
    params: [lobbyId, { name: 'playerId', in: 'path', required: true, schema: playerId }, configName,
      { name: 'requesterId', in: 'query', required: true, schema: playerId }, { name: 'isKick', in: 'query', required: false, schema: flag }],
  },
  ...matchmakerOperations(),
];

/** The legacy matchmaker (docs/api.md "Legacy matchmaker"): bad input is 400, unknown fields are ignored. */
function matchmakerOperations(): Operation[] {
  const name: Param = { name: 'matchmaker_name', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 } };
  const id: Param = { name: 'matchmaker_id', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 128 } };
  const pathId: Param = { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 128 } };
  const strings: JsonSchema = { type: 'array', maxItems: 16, items: { type: 'string' } };
  const ticket: JsonSchema = {
    type: 'object', required: ['matchmaker_name'],
    properties: { matchmaker_name: name.schema, player_id: playerId, matchmaker_id: id.schema, regions: strings, elo: { type: 'number' }, preferred_modes: strings, gameBuild: { type: 'string', maxLength: 128 } },
  };
  const op = (method: string, path: string, params: Param[], body?: JsonSchema): Operation => ({
    listener: 'legacy', method, path, auth: 'apiKey', params, invalidStatus: 400, ...(body ? { body: json(body) } : {}),
  });
  return [
    op('POST', '/matchmaker/tickets', [], ticket),
    op('GET', '/matchmaker/tickets', [name, id]),
    op('GET', '/matchmaker/tickets/{id}', [pathId, name, id, { name: 'type', in: 'query', required: false, schema: { type: 'string', enum: ['ticket', 'player'] } }]),
    op('DELETE', '/matchmaker/tickets/{id}', [pathId, name, id]),
    op('GET', '/matchmaker/matches', [name, id]),
    op('DELETE', '/matchmaker/matches/{id}', [pathId, name, id]),
  ];
}
