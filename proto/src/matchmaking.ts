// Matchmaking contracts (decisions.md "Matchmaking"): explain, and the queue figures the active matcher
// broadcasts for lobby views and event streams.
import { SUBJECTS } from './subjects';
import { BusEvent, BusRequest } from './contracts';
import { Bool, Int, Json, NestedArray, Num, Str } from './validation/fields';
import { PlayerLobbyRequest } from './lobbies';

const M = SUBJECTS.matchmaking;

export class QueueStatsView {
  @Int() playersSearching!: number;
  @Int() lobbiesInQueue!: number;
  @Int() avgWaitSeconds!: number;
}

/** The figures of one queue: a (project, config, mode, region). */
export class QueueStatsEntry {
  @Str() projectId!: string;
  @Str() config!: string;
  @Str() mode!: string;
  @Str() region!: string;
  @Int() playersSearching!: number;
  @Int() lobbiesInQueue!: number;
  @Int() avgWaitSeconds!: number;
  /** Matches these players make (players searching ÷ a full match, rounded up): the servers the queue will claim soon (pool demand). */
  @Int({ optional: true }) matchesForming?: number;
}
/** Broadcast on `matchmaking.queueStats` by the active matcher, every queueStatsBroadcastMs (2 s; lobbyQueueStatsMs when shorter): every queue with a lobby in it. */
@BusEvent(M.queueStats)
export class QueueStatsBroadcast { @NestedArray(() => QueueStatsEntry) queues!: QueueStatsEntry[] }

@BusRequest(M.explain)
export class ExplainMatchmakingRequest extends PlayerLobbyRequest {}

/** The game opened (true) or locked (false) its match's roster: a lock gives up a fill in flight. Replies `{}`. */
@BusRequest(M.setBackfillAccepting)
export class SetBackfillAcceptingRequest { @Str() projectId!: string; @Str() matchId!: string; @Bool() accepting!: boolean }

export class CurrentRuleView {
  @Str() field!: string;
  @Num() maxDifference!: number;
  @Str({ nullable: true, description: 'When the window grows next; null at its widest' }) nextExpansionAt!: string | null;
}

/** GET /v3/lobbies/{config}/me/matchmaking: why the caller's lobby has not matched yet. */
export class MatchmakingExplanation {
  @Str() mode!: string;
  @Str() startedAt!: string;
  @Str({ description: "The lobby's status (in_queue while searching)" }) status!: string;
  @Json() queueStats!: Record<string, unknown>;
  @Json({ nullable: true, description: 'The difference rule now: {field, maxDifference, nextExpansionAt}; null when the mode has none' }) currentRule!: Record<string, unknown> | null;
  @Num({ description: "The lobby's rating: the mean of its players' state[field] (missing: 1000)" }) rating!: number;
  @Int({ description: 'Queued lobbies this one could share a match with now' }) candidates!: number;
  @Num({ nullable: true, description: 'The smallest rating gap to another lobby of its queue' }) nearestGap!: number | null;
  @Json({ description: 'Why it has not matched: [{code, ...figures}]; codes: no_candidate_in_window, not_enough_players (with role for a short role), party_too_large, role_missing, role_full, latency_above_max, no_common_region, equal_rule, match_forming, awaiting_confirmation, server_starting' })
  blockedBy!: Record<string, unknown>[];
}
