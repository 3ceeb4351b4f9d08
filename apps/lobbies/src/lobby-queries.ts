// Browse: public lobbies of a config, newest first, from the read model.
import { invalid, LobbyView } from '@spawnpoint/domain';
import { decodeTimeCursor, encodeTimeCursor } from '@spawnpoint/platform';
import { BrowseLobbiesRequest, LobbyPage } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { lobbyPage } from './lobby-views';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DEFAULT_BROWSE_LIMIT = 20;
export const MAX_BROWSE_LIMIT = 100;

export async function browseLobbies(db: ReadModels, r: BrowseLobbiesRequest): Promise<LobbyPage<LobbyView>> {
  const limit = r.limit ?? DEFAULT_BROWSE_LIMIT;
  const cursor = r.next_token ? decodeTimeCursor(r.next_token, UUID) : null;
  if (r.next_token && !cursor) throw invalid('next_token is not a token this service issued', ['query', 'next_token']);
  const rows = await db.lobby.findMany({
    where: {
      projectId: r.projectId, config: r.config,
      ...(r.includePrivate ? {} : { isPrivate: false }),
      ...(r.region ? { region: r.region } : {}),
      ...(r.status ? { status: r.status } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    select: { id: true, state: true, createdAt: true },
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return lobbyPage(page.map((row) => row.state), rows.length > limit && last ? encodeTimeCursor({ at: last.createdAt, id: last.id }) : null);
}
