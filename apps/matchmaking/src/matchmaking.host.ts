// The matchmaking service (decisions.md "Matchmaking"): the queue in memory, in a worker thread (fed by
// its projection of the lobbies' events), one active matcher proposing matches on their own streams
// (`match-<id>`), and the match-formation workflow that carries each proposal out through the lobbies and
// servers services (MatchIntents). Its routes (explain) are in routes.ts.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isMatchOver, matchFormationWorkflow, matchSize } from '@spawnpoint/domain';
import { Unsubscribe } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import { LiveQueueStats, LobbyConfigs } from '@spawnpoint/service-clients';
import { queueGauges } from './queue-gauges';
import { QueueStatsBroadcast, SUBJECTS } from '@spawnpoint/proto';
import { readModelsPool } from '@spawnpoint/read-models';
import { MatchIntents } from './match-intents';
import { Matcher } from './matcher';
import { MatchmakingReadModel } from './matchmaking-read-model';
import { OpenMatches } from './open-matches';
import { QueueBookProxy } from './queue-book-proxy';
import { queueStats } from './queue-stats';
import { ticketRows, ticketsProjection } from './tickets.projection';

const log = logger('matchmaking');

@Injectable()
export class MatchmakingHost extends ServiceHost {
  private readonly unsubscribes: Unsubscribe[] = [];
  matcher: Matcher | null = null;
  private statsTimer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(PLATFORM) platform: Platform, readModel: MatchmakingReadModel, readonly book: QueueBookProxy, private readonly open: OpenMatches, private readonly intents: MatchIntents,
    private readonly configs: LobbyConfigs, private readonly figures: LiveQueueStats,
  ) {
    super(platform, readModel, 'matchmaking', ['match']);
  }

  protected readModels() {
    return [ticketsProjection(this.book, this.open, () => this.matcher?.nudge())];
  }

  protected override workflows() {
    return [matchFormationWorkflow];
  }

  protected override gauges() {
    return queueGauges(this.db);
  }

  protected override dispatcher() {
    return this.intents.dispatch;
  }

  protected override async starting(): Promise<void> {
    // The table's rows now, and again into a queue worker started after one died.
    await this.book.loadFrom(() => ticketRows(readModelsPool(this.db)));
    this.unsubscribes.push(
      await this.configs.follow('matchmaking-projects'),
      await this.figures.follow(this.bus),
    );
    this.matcher = new Matcher({
      book: this.book,
      open: this.open,
      pool: readModelsPool(this.db),
      clock: this.clock,
      config: (projectId, config) => this.configs.get(projectId, config),
      propose: async (proposal, now) => {
        try {
          // Optimistic: a new match's stream is most likely new (a repeat's append fails on it, then reads).
          const ran = await this.intents.matches.handle(proposal.matchId, { type: 'ProposeMatch', proposal, now }, { projectId: proposal.projectId });
          return { over: isMatchOver(ran.state) };
        } catch (err) {
          // The same id proposed otherwise (another matcher, another mode version): that match decides for
          // these lobbies while it lives; once it is over they are free.
          if (!(err instanceof DomainError && err.code === 'conflict')) throw err;
          return { over: isMatchOver((await this.intents.matches.load(proposal.matchId)).state) };
        }
      },
      proposeFill: async (matchId, lobby, team, now) => {
        await this.intents.matches.handle(matchId, { type: 'ProposeFill', lobby, team, now });
      },
    }, this.config.matchTickMs);
    this.matcher.start();
    this.statsTimer = setInterval(() => void this.broadcastStats(), Math.min(this.config.lobbyQueueStatsMs, this.config.queueStatsBroadcastMs));
    this.statsTimer.unref();
  }

  /** The active matcher's live queue figures, for every process that shows them. */
  private async broadcastStats(): Promise<void> {
    if (!this.matcher?.leading) return;
    try {
      const queues = await queueStats(this.book, readModelsPool(this.db), this.clock().getTime());
      // The servers each queue will claim soon, for pools sized by demand (issue 38).
      for (const q of queues) {
        const mode = (await this.configs.get(q.projectId, q.config).catch(() => null))?.modes[q.mode];
        if (mode && matchSize(mode) > 0) q.matchesForming = Math.ceil(q.playersSearching / matchSize(mode));
      }
      await this.bus.broadcast(SUBJECTS.matchmaking.queueStats, { queues } satisfies QueueStatsBroadcast);
    } catch (err) {
      log.error(`matchmaking: queue figures not sent: ${(err as Error).message}`);
    }
  }

  protected override async stopping(): Promise<void> {
    if (this.statsTimer) clearInterval(this.statsTimer);
    await this.matcher?.stop();
    await this.book.close();
    for (const u of this.unsubscribes.splice(0)) await u().catch(() => undefined);
  }
}
