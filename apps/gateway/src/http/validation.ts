// Request validation with the proto contract classes (class-validator), reported in the spec's 422 shape:
// detail: [{loc: ["body"|"query"|"path"|"header", field, ...], msg, type}].
import type { ValidationIssue } from '@spawnpoint/domain';
import { checkContract, fieldsOf, type ContractClass } from '@spawnpoint/proto';
import { RemoteError } from '@spawnpoint/messaging';

export type { ValidationIssue };
export type Where = 'body' | 'query' | 'path' | 'header';

export function validationError(detail: ValidationIssue[]): RemoteError {
  return new RemoteError({ error: 'Validation error', status: 422, detail });
}

/**
 * Parse or throw the spec's 422. A request without a body reads as `{}`, so a body whose fields are all
 * optional may be left out (the OpenAPI document says so); a JSON `null` body never gets here (input limits).
 * Unknown fields are refused in bodies and paths; headers and query parameters the contract does not name
 * are left out (a request carries many headers, and unknown query parameters are ignored, as the hosted
 * service ignores them).
 */
export function parse<T extends object>(contract: ContractClass<T>, input: unknown, where: Where): T {
  const given = where === 'header' || where === 'query' ? declared(contract, input) : input ?? {};
  const checked = checkContract(contract, given, [where]);
  if (checked.ok) return checked.value;
  throw validationError(checked.issues);
}

/** As `parse`, but body fields the contract does not name are dropped too, not refused (the v2 API ignores them, as the hosted service does). */
export function parseKnown<T extends object>(contract: ContractClass<T>, input: unknown, where: Where): T {
  const given = input === null || typeof input !== 'object' || Array.isArray(input) ? input : declared(contract, input);
  return parse(contract, given, where);
}

/** Only the fields the contract names (headers, query parameters). */
function declared(contract: ContractClass, input: unknown): Record<string, unknown> {
  const all = (input ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name] of fieldsOf(contract)) if (all[name] !== undefined) out[name] = all[name];
  return out;
}
