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
 * Unknown fields are refused in bodies and paths; unknown headers and query parameters are ignored (a request
 * carries many headers, and the hosted service ignores query parameters it does not know: decisions.md).
 */
export function parse<T extends object>(contract: ContractClass<T>, input: unknown, where: Where): T {
  const given = where === 'header' || where === 'query' ? declared(contract, input) : input ?? {};
  const checked = checkContract(contract, given, [where], where === 'body' || where === 'path');
  if (checked.ok) return checked.value;
  throw validationError(checked.issues);
}

/** Only the fields the contract names (headers, query parameters). */
function declared(contract: ContractClass, input: unknown): Record<string, unknown> {
  const all = (input ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name] of fieldsOf(contract)) if (all[name] !== undefined) out[name] = all[name];
  return out;
}

/**
 * Parse or throw the spec's 422, ignoring unknown fields (the v2 and legacy lobby APIs, as the hosted
 * service does: its own clients send fields it never declared). Only the declared fields are returned.
 */
export function parseIgnoringUnknown<T extends object>(contract: ContractClass<T>, input: unknown, where: Where): T {
  const checked = checkContract(contract, input ?? {}, [where], false);
  if (!checked.ok) throw validationError(checked.issues);
  return declared(contract, checked.value) as T;
}
