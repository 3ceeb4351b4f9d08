// One outbound call to an identity provider with a hard timeout. Messages never carry the URL (it may
// hold an API key in its query string).
import { ProviderUnavailable } from './errors';
import { providerSpan } from './provider-span';

export const DEFAULT_PROVIDER_TIMEOUT_MS = 3_000;
const MAX_BODY_CHARS = 1_000_000;

export interface ProviderResponse {
  status: number;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: unknown;
}

export async function fetchJson(provider: string, url: string, init: RequestInit, timeoutMs: number): Promise<ProviderResponse> {
  let res: Response;
  let text: string;
  try {
    ({ res, text } = await providerSpan(provider, init.method ?? 'GET', url, async () => {
      const answer = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
      return { res: answer, text: await answer.text() };
    }, (r) => r.res.status));
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new ProviderUnavailable(`${provider} did not answer within ${timeoutMs} ms`);
    throw new ProviderUnavailable(`${provider} could not be reached`);
  }
  let body: unknown;
  if (text.length <= MAX_BODY_CHARS) {
    try { body = JSON.parse(text); } catch { body = undefined; }
  }
  return { status: res.status, body };
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Short and printable: upstream text quoted in our error messages. */
export const clip = (v: unknown, max = 200): string => String(v).replace(/[^\x20-\x7e]/g, '?').slice(0, max);
