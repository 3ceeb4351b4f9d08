import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { conflict } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { LiveQueueStats, LobbyConfigs } from '@spawnpoint/service-clients';
import { ExplainMatchmakingRequest, MatchmakingExplanation, SUBJECTS } from '@spawnpoint/proto';
import { QueueBookProxy } from '../queue-book-proxy';

export class ExplainMatchmaking extends BusQuery<ExplainMatchmakingRequest, MatchmakingExplanation> {}

/**
 * Why the caller's lobby has not matched yet, from the queue the matcher matches (explainTicket applies the
 * engine's own rules). A lobby past the queue (a match found for it) says what it waits for; one not
 * searching is 409; a player without a lobby, the lobbies service's 404.
 */
@Injectable()
@QueryHandler(ExplainMatchmaking)
export class ExplainMatchmakingHandler implements IQueryHandler<ExplainMatchmaking> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly book: QueueBookProxy, private readonly configs: LobbyConfigs, private readonly figures: LiveQueueStats) {}

  async execute({ request: r }: ExplainMatchmaking): Promise<MatchmakingExplanation> {
    // The lobby says whether it searches (its own service answers: 404 without one, 409 when not searching);
    // the queue the matcher matches says why it has not matched.
    const lobby = await this.platform.bus.request(SUBJECTS.lobbies.getMine, { projectId: r.projectId, config: r.config, playerId: r.playerId });
    const m = lobby.matchmaking;
    if (!m) throw conflict(`lobby is ${lobby.status}, not searching`);
    const config = await this.configs.get(r.projectId, r.config);
    const mode = config.modes[m.mode];
    // Answered by the queue worker: from the queue's matching index when it was built for this mode
    // (O(log n + k)), else a scan; null when the lobby is not in the queue.
    const held = lobby.status === 'in_queue' && mode ? await this.book.explain(lobby.id, mode, this.platform.clock().toISOString()) : null;
    if (held && mode) {
      const { region, proposedFor, why } = held;
      return {
        mode: mode.name, startedAt: m.startedAt, status: lobby.status, queueStats: { ...this.figures.of(r.projectId, config.name, mode.name, region) },
        currentRule: why.currentRule, rating: why.rating, candidates: why.candidates, nearestGap: why.nearestGap,
        blockedBy: proposedFor ? [{ code: 'match_forming', matchId: proposedFor }] : why.blockedBy,
      };
    }
    // Past the queue (a match found for it), or reserved for a match being formed.
    const waiting = lobby.status === 'match_found' && m.confirmation && !m.confirmation.confirmed
      ? { code: 'awaiting_confirmation', deadline: m.confirmation.deadline }
      : lobby.status === 'in_queue' ? { code: 'match_forming' } : { code: 'server_starting' };
    return {
      mode: m.mode, startedAt: m.startedAt, status: lobby.status, queueStats: { ...m.queueStats }, currentRule: null, rating: 0, candidates: 0, nearestGap: null,
      blockedBy: [waiting],
    };
  }
}
