// Starts of a project whose plan caps active servers run one at a time, across every servers replica:
// the cap is checked on the servers read model, and a start only returns once that model shows the new
// server, so the next start counts it. Without this, ten concurrent starts (ten lobbies of one client key)
// would each count 0 and all pass the free plan's cap of 1. Uncapped plans never wait here.
import { KeyedLane } from '@spawnpoint/platform';
import { AdvisoryLocks } from '@spawnpoint/read-models';

/** Advisory-lock namespace of this use (the first key of pg_advisory_lock(int, int)). */
const LOCK_NAMESPACE = 7_402_011;

export class PlanAdmission {
  private readonly lane = new KeyedLane();
  private readonly locks: AdvisoryLocks;

  constructor(connectionString: string) {
    this.locks = new AdvisoryLocks(connectionString);
  }

  /** Runs `work` while no other start of the project runs, in this process (lane) or another (advisory lock). */
  run<T>(projectId: string, work: () => Promise<T>): Promise<T> {
    return this.lane.run(projectId, () => this.locks.run(LOCK_NAMESPACE, projectId, work));
  }

  close(): Promise<void> {
    return this.locks.close();
  }
}
