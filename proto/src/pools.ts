// GET /v3/pools: each pool region's capacity as the servers service sees it now: what it keeps ready and
// why (the demand policy's reasons, or the static min_ready), next to what is ready, launching and claimed.
import { SUBJECTS } from './subjects';
import { BusRequest } from './contracts';
import { Bool, Enum, Int, List, NestedArray, Str } from './validation/fields';

@BusRequest(SUBJECTS.servers.poolCapacity)
export class PoolCapacityRequest { @Str() projectId!: string }

export class PoolRegionCapacity {
  @Str() region!: string;
  @Enum(['static', 'demand'], { description: 'static: min_ready always; demand: the region\'s demand settings' }) sized_by!: 'static' | 'demand';
  @Int({ min: 0 }) min_ready!: number;
  @Int({ min: 0 }) max!: number;
  @Int({ min: 0, description: 'The ready count the pool keeps now' }) desired!: number;
  @Int({ min: 0, description: 'Unclaimed and running, of the pool\'s build version' }) ready!: number;
  @Int({ min: 0, description: 'Unclaimed and launching, of the pool\'s build version' }) launching!: number;
  @Int({ min: 0, description: 'Unclaimed, of another build version or size: replaced by the rollout' }) outdated!: number;
  @Int({ min: 0, description: 'Claimed pool servers still active' }) claimed!: number;
  @List({ type: 'string' }, { description: 'Why desired is what it is' }) why!: string[];
}

export class PoolCapacityView {
  @Bool() enabled!: boolean;
  @Str({ nullable: true }) build_name!: string | null;
  @Int({ min: 1, nullable: true, description: 'The build version pool servers run now (null: no ready build)' }) build_version!: number | null;
  @NestedArray(() => PoolRegionCapacity) regions!: PoolRegionCapacity[];
}
