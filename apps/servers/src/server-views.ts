// The servers read side shared by the handlers: GET /servers/{id} is the hottest read (game servers and
// clients poll it), served from memory and exact because each applied event invalidates it; reads wait
// for the pool claims they could see (ClaimVisibility).
import { Inject, Injectable } from '@nestjs/common';
import { notFound, PLAN_LIMITS, serverStream } from '@spawnpoint/domain';
import { Platform, PLATFORM, ViewCache } from '@spawnpoint/platform';
import { GetServerRequest, ProjectView, ServerView } from '@spawnpoint/proto';
import { ClaimVisibility } from './claim-visibility';
import { rowShape, serverView } from './server-view';
import { ServersReadModel } from './servers-read-model';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ACTIVE = ['launching', 'running'];

@Injectable()
export class ServerViews {
  private readonly cache = new ViewCache<{ projectId: string; view: ServerView }>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly readModel: ServersReadModel, private readonly claims: ClaimVisibility) {
    readModel.onApplied(({ event }) => this.cache.invalidate(event.data.serverId));
  }

  /** The server as its project sees it; 404 for a missing server or another project's. `fresh`: after the stream's head. */
  get(req: GetServerRequest): Promise<ServerView> {
    // The hot path (a poll of a cached server, no claim pending): answered without a wait or a load.
    const hit = !req.fresh && this.claims.none(req.serverId) ? this.cache.peek(req.serverId) : undefined;
    if (hit !== undefined && hit.projectId === req.projectId) return Promise.resolve(hit.view);
    return this.load(req);
  }

  private async load(req: GetServerRequest): Promise<ServerView> {
    await this.claims.seen(req.serverId);
    if (req.fresh) await this.readModel.waitForHead(serverStream(req.serverId));
    const found = UUID.test(req.serverId)
      ? await this.cache.get(req.serverId, async () => {
          const s = await this.platform.db.server.findUnique({ where: { id: req.serverId } });
          return s ? { projectId: s.projectId, view: serverView(rowShape(s)) } : null;
        })
      : null;
    if (!found || found.projectId !== req.projectId) throw notFound('server');
    return found.view;
  }

  /** Active servers of a capped plan's project (0 for an uncapped plan: nothing to count). */
  async activeCount(project: ProjectView): Promise<number> {
    if (PLAN_LIMITS[project.plan].maxActiveServers === null) return 0;
    return this.platform.db.server.count({ where: { projectId: project.projectId, status: { in: ACTIVE } } });
  }
}
