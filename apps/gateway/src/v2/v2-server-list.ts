// The v2 list has no paging: every page of the servers service's list, in its order (newest first).
// Without include_launching only running servers; unclaimed pool servers are left out (as v3 without include_pool).
import type { Bus } from '@spawnpoint/messaging';
import { ListServersRequest, ServerView, SUBJECTS } from '@spawnpoint/proto';

/** As many as the HTTP list's largest page. */
const PAGE = 100;

export async function listAllServers(bus: Bus, projectId: string, includeLaunching: boolean): Promise<ServerView[]> {
  const byId = new Map<string, ServerView>();
  for (let offset = 0; ;) {
    const page = await bus.request(SUBJECTS.servers.list, { projectId, include_launching: includeLaunching, limit: PAGE, offset } satisfies ListServersRequest);
    // A server started between two pages shifts the later ones by one: seen twice, kept once.
    for (const s of page.servers) if (!byId.has(s.instance_id)) byId.set(s.instance_id, s);
    if (!page.has_more || page.servers.length === 0) return [...byId.values()];
    offset += page.servers.length;
  }
}
