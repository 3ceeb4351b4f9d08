// Backfill contracts (decisions.md "Backfill"): a game server reads and overrides its match's backfill.
import { SUBJECTS } from './subjects';
import { BusRequest } from './contracts';
import { Bool, Int, Json, List, Nested, Num, Rule, Str } from './validation/fields';

const B = SUBJECTS.backfill;

export class SkillBandInput {
  @Str({ min: 1, max: 128 }) field!: string;
  @Num() min!: number;
  @Rule('min_le_max', (_, o) => typeof o.min !== 'number' || typeof o.max !== 'number' || o.min <= o.max, 'max must not be below min')
  @Num() max!: number;
}

/** PATCH /v3/servers/{instance_id}/backfill. `skillBand` replaces the band; omitted, the band stays. */
export class BackfillOverrideBody {
  @Bool() accepting!: boolean;
  @Nested(() => SkillBandInput, { optional: true }) skillBand?: SkillBandInput;
}

@BusRequest(B.get)
export class GetBackfillRequest { @Str() projectId!: string; @Str() serverId!: string }
@BusRequest(B.override)
export class OverrideBackfillRequest extends GetBackfillRequest { @Json() body!: BackfillOverrideBody }

export class SkillBandView { @Str() field!: string; @Num() min!: number; @Num() max!: number }
/** The Backfill state resource, plus the roster the game sees (custom_data.match teams). */
export class BackfillState {
  @Str() match_id!: string;
  @Str() instance_id!: string;
  @Str({ description: 'in_game, locked or completed' }) status!: string;
  @Bool() backfill_open!: boolean;
  @Str({ nullable: true }) backfill_deadline!: string | null;
  @Nested(() => SkillBandView, { nullable: true }) skill_band!: SkillBandView | null;
  @Int() roster_version!: number;
  /** Player ids per team (custom_data.match teams; empty for a server started directly). */
  @List({ type: 'array', items: { type: 'string' } }) roster!: string[][];
}
