// @Doc on a controller method records its OpenAPI description next to the code it describes;
// the document is generated from these records, the proto contract classes and Nest's own route metadata.
import type { ContractClass, JsonSchema } from '@spawnpoint/proto';

/** A contract class, or a schema given by hand (answers that are not JSON). */
export type DocSchema = ContractClass | JsonSchema;

export interface DocSpec {
  summary: string;
  tags: string[];
  auth: 'none' | 'client' | 'server' | 'admin' | 'upload-token' | 'server-token';
  params?: ContractClass;
  query?: ContractClass;
  headers?: Record<string, { required: boolean; description: string }>;
  body?: ContractClass;
  /** A body that is not JSON (an upload): streamed, it takes no Idempotency-Key. */
  bodyContentType?: string;
  /** Its schema when not a binary string (a multipart form). */
  bodySchema?: JsonSchema;
  responses: Record<number, { description: string; schema?: DocSchema; contentType?: string }>;
}

export interface DocRecord { target: object; method: string; spec: DocSpec }
export const docRecords: DocRecord[] = [];

export function Doc(spec: DocSpec): MethodDecorator {
  return (target, propertyKey) => {
    docRecords.push({ target: target.constructor, method: String(propertyKey), spec });
  };
}
