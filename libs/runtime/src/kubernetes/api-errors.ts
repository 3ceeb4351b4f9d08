// Errors from the API server, in one line a person can act on.

/** A non-200 answer to a request made with openApiStream. */
export class ApiStatusError extends Error {
  constructor(readonly statusCode: number, body: string) {
    super(`HTTP ${statusCode}: ${statusMessage(body)}`);
  }
}

/** The client's ApiException (`code`, `body` a Status), our ApiStatusError, or a network error's message. */
export function describeApiError(err: unknown): string {
  const e = err as { code?: unknown; body?: unknown; message?: string };
  if (typeof e?.code === 'number' && e.body !== undefined) return `HTTP ${e.code}: ${statusMessage(e.body)}`;
  return e?.message ?? String(err);
}

/** The message of a Kubernetes Status body, else the body itself (shortened). */
export function statusMessage(body: unknown): string {
  if (typeof body === 'string') {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body.slice(0, 500);
    }
  }
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    return (body as { message: string }).message;
  }
  return JSON.stringify(body)?.slice(0, 500) ?? String(body);
}
