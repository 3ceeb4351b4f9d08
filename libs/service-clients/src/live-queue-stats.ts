// The queue figures the active matcher broadcasts (matchmaking.queueStats), kept by every process that
// shows them: the lobbies service in lobby views, the gateways in queued lobbies' `queue_stats` events,
// the matchmaking service in explain. A queue missing from the last broadcast has no lobby in it.
import { Bus, Unsubscribe } from '@spawnpoint/messaging';
import { QueueStatsBroadcast, QueueStatsView, SUBJECTS, validListener } from '@spawnpoint/proto';

const key = (projectId: string, config: string, mode: string, region: string) => `${projectId}\u0000${config}\u0000${mode}\u0000${region}`;
export const NO_QUEUE_FIGURES: QueueStatsView = Object.freeze({ playersSearching: 0, lobbiesInQueue: 0, avgWaitSeconds: 0 });

export class LiveQueueStats {
  private figures = new Map<string, QueueStatsView>();

  update(b: QueueStatsBroadcast): void {
    this.figures = new Map(b.queues.map((q) => [key(q.projectId, q.config, q.mode, q.region), {
      playersSearching: q.playersSearching, lobbiesInQueue: q.lobbiesInQueue, avgWaitSeconds: q.avgWaitSeconds,
    }]));
  }

  of(projectId: string, config: string, mode: string, region: string): QueueStatsView {
    return this.figures.get(key(projectId, config, mode, region)) ?? NO_QUEUE_FIGURES;
  }

  follow(bus: Bus): Promise<Unsubscribe> {
    const subject = SUBJECTS.matchmaking.queueStats;
    return bus.listen(subject, validListener<QueueStatsBroadcast>(subject, (b) => this.update(b)));
  }
}
