// Browse: public lobbies of a config, newest first, from the read model (one pagination style: limit/offset).
import { LobbyView } from '@spawnpoint/domain';
import { BrowseLobbiesRequest, LobbyPage } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { lobbyPage } from './lobby-views';

export const DEFAULT_BROWSE_LIMIT = 50;
export const MAX_BROWSE_LIMIT = 100;

export async function browseLobbies(db: ReadModels, r: BrowseLobbiesRequest): Promise<LobbyPage<LobbyView>> {
  const limit = r.limit ?? DEFAULT_BROWSE_LIMIT;
  const offset = r.offset ?? 0;
  const where = {
    projectId: r.projectId, config: r.config,
    ...(r.includePrivate ? {} : { isPrivate: false }),
    ...(r.region ? { region: r.region } : {}),
    ...(r.status ? { status: r.status } : {}),
  };
  // Offset paging, as the hosted service's clients page; a lobby created between two pages shifts the next one.
  const [total, rows] = await Promise.all([
    db.lobby.count({ where }),
    db.lobby.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit, select: { state: true } }),
  ]);
  return lobbyPage(rows.map((row) => row.state), { total, limit, offset });
}
