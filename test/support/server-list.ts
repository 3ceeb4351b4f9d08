// Every server of a project in any status, over HTTP. GET /v3/servers lists running servers by default
// (launching too with include_launching, one status with `status`), so a test that must see them all asks
// status by status in lifecycle order (launching → running → stopped): a server that moves on between two
// asks is seen in the later one (at worst twice; the last sighting is kept), never missed.
import type { client } from './http';

type Api = Pick<ReturnType<typeof client>, 'get'>;

/**
 * Every page of `GET /v3/servers?{query}` (offset by offset). With `since` (ISO time), paging stops at the
 * first page that reaches a server created before it (pages are newest first): a long test's history of
 * stopped servers is not read again on every look.
 */
export async function listPages(api: Api, query = '', since?: string): Promise<any[]> {
  const servers: any[] = [];
  for (let offset = 0; ;) {
    const page = await api.get(`/v3/servers?limit=100&offset=${offset}${query ? `&${query}` : ''}`);
    if (page.status !== 200) throw new Error(`list: ${page.status} ${JSON.stringify(page.body)}`);
    servers.push(...page.body.servers);
    if (!page.body.has_more || page.body.servers.length === 0) return servers;
    if (since && page.body.servers.some((s: any) => s.created_at < since)) return servers;
    offset += page.body.servers.length;
  }
}

/**
 * Every server (pool servers included) whatever its status, newest first; `query`: more filters (region=…).
 * With `since`: every live one, and the stopped ones created since then (and perhaps a few before).
 */
export async function everyServer(api: Api, query = '', since?: string): Promise<any[]> {
  const seen = new Map<string, any>();
  for (const status of ['launching', 'running', 'stopped']) {
    for (const s of await listPages(api, `status=${status}&include_pool=true${query ? `&${query}` : ''}`, status === 'stopped' ? since : undefined)) seen.set(s.instance_id, s);
  }
  return [...seen.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.instance_id.localeCompare(a.instance_id));
}
