// The v2 list has no paging: every page of the servers service's list, in its order (newest first).
// Without include_launching only running servers; unclaimed pool servers are left out (as v3 without include_pool).
import type { Bus } from '@spawnpoint/messaging';
import { ListServersRequest, ServerList, ServerView, SUBJECTS } from '@spawnpoint/proto';

const PAGE = 100;

export async function listAllServers(bus: Bus, projectId: string, includeLaunching: boolean): Promise<ServerView[]> {
  // Interim, on the list contract paged by next_token and filtered by one status: one walk per status, merged.
  const statuses = includeLaunching ? ['running', 'launching'] : ['running'];
  const byId = new Map<string, ServerView>();
  for (const status of statuses) {
    let next_token: string | undefined;
    do {
      const page = await bus.request<ServerList>(SUBJECTS.servers.list, { projectId, status, limit: PAGE, next_token } satisfies ListServersRequest);
      for (const s of page.servers) byId.set(s.instance_id, s);
      next_token = page.next_token ?? undefined;
    } while (next_token);
  }
  return [...byId.values()]
    .filter((s) => !(s.is_pool_server && s.pool_claimed_at === null))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.instance_id.localeCompare(a.instance_id));
}
