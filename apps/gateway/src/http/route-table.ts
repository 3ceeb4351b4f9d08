// Every route Fastify registers, recorded so a wrong method gets 405 (not 404) and the OpenAPI test
// can check that each route is documented.
import FindMyWay from 'find-my-way';

const router = FindMyWay();
export const registeredRoutes: { method: string; url: string }[] = [];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function recordRoute(method: string | string[], url: string): void {
  for (const m of Array.isArray(method) ? method : [method]) {
    if (!METHODS.includes(m as (typeof METHODS)[number])) continue;
    if (registeredRoutes.some((r) => r.method === m && r.url === url)) continue;
    registeredRoutes.push({ method: m, url });
    router.on(m as (typeof METHODS)[number], url, () => undefined);
  }
}

export function allowedMethods(url: string): string[] {
  const path = url.split('?')[0];
  return METHODS.filter((m) => router.find(m, path) !== null);
}
