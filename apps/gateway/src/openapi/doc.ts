// @Doc on a controller method records its OpenAPI description next to the code it describes;
// the document is generated from these records and Nest's own route metadata.
import { z } from 'zod';

export interface DocSpec {
  summary: string;
  tags: string[];
  auth: 'none' | 'client' | 'server' | 'admin' | 'upload-token';
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: Record<string, { required: boolean; description: string }>;
  body?: z.ZodType;
  bodyContentType?: string;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
}

export interface DocRecord { target: object; method: string; spec: DocSpec }
export const docRecords: DocRecord[] = [];

export function Doc(spec: DocSpec): MethodDecorator {
  return (target, propertyKey) => {
    docRecords.push({ target: target.constructor, method: String(propertyKey), spec });
  };
}
