import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { PoolCapacityRequest, PoolCapacityView } from '@spawnpoint/proto';
import { ServerPools } from '../pools/server-pools';
import { ACTIVE } from '../server-views';

export class GetPoolCapacity extends BusQuery<PoolCapacityRequest, PoolCapacityView> {}

/** GET /v3/pools: each pool region's desired count and why, from the pool manager, with its claimed servers from the read model. */
@Injectable()
@QueryHandler(GetPoolCapacity)
export class GetPoolCapacityHandler implements IQueryHandler<GetPoolCapacity> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly pools: ServerPools) {}

  async execute({ request: req }: GetPoolCapacity): Promise<PoolCapacityView> {
    const rows = await this.platform.db.server.findMany({
      where: { projectId: req.projectId, isPoolServer: true, poolClaimedAt: { not: null }, status: { in: ACTIVE } }, select: { region: true },
    });
    const claimed: Record<string, number> = {};
    for (const r of rows) claimed[r.region] = (claimed[r.region] ?? 0) + 1;
    return this.pools.manager.capacity(req.projectId, claimed);
  }
}
