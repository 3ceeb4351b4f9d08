// Requests of the legacy matchmaker (the legacy listener's /matchmaker routes, docs/api.md "Legacy
// matchmaker"). Unknown fields are ignored, as the hosted service ignores them; a refusal is 400 there.
import { Enum, List, Num, Str } from '../validation/fields';
import { PlayerIdField } from './fields';

const MatchmakerName = (o: { optional?: boolean } = {}) => Str({ ...o, min: 1, max: 128, description: 'Lobby configuration name' });
const MatchmakerId = (o: { optional?: boolean } = {}) => Str({ ...o, min: 1, max: 128, description: 'Lobby configuration id' });

/** POST /matchmaker/tickets. */
export class LegacyCreateTicketBody {
  @MatchmakerName() matchmaker_name!: string;
  @PlayerIdField({ optional: true }) player_id?: string;
  @MatchmakerId({ optional: true }) matchmaker_id?: string;
  @List({ type: 'string' }, { optional: true, max: 16, each: (v) => typeof v === 'string', eachMsg: 'every entry must be a string' }) regions?: string[];
  @Num({ optional: true }) elo?: number;
  @List({ type: 'string' }, { optional: true, max: 16, each: (v) => typeof v === 'string', eachMsg: 'every entry must be a string' }) preferred_modes?: string[];
  @Str({ max: 128, optional: true }) gameBuild?: string;
}

/** The matchmaker of a request: its name, or its id (at least one; both must name the same configuration). */
export class LegacyMatchmakerQuery {
  @MatchmakerName({ optional: true }) matchmaker_name?: string;
  @MatchmakerId({ optional: true }) matchmaker_id?: string;
}
/** GET /matchmaker/tickets/{id}: `type=player` looks the player up instead of a ticket. */
export class LegacyTicketQuery extends LegacyMatchmakerQuery { @Enum(['ticket', 'player'], { optional: true }) type?: 'ticket' | 'player' }
export class LegacyMatchmakerParams { @Str({ min: 1, max: 128 }) id!: string }
