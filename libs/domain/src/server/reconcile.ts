// What the servers service does with the game machines it finds on start (after a crash or a restart),
// against the servers the store says are live. Pure: the caller lists both and carries the plan out.

export type RecordedStatus = 'none' | 'launching' | 'running' | 'stopped';

export interface ReconcileInput {
  /**
   * Every server the store may consider live (and any a machine names), with its status in the store and,
   * with several servers replicas (ADR-0021), the runtime instance that owns its machine: `mine` (this
   * instance, or no owner recorded), `expired` (an owner whose lease ran out: taken over) or `live` (another
   * instance that heartbeats: not ours to touch). Absent means `mine`.
   */
  servers: { serverId: string; status: RecordedStatus; owner?: ServerOwnership }[];
  /** The servers whose machine the runtime runs now. */
  machines: string[];
}

export type ServerOwnership = 'mine' | 'expired' | 'live';

export interface ReconcilePlan {
  /** Live record, machine still there: watched again and left running (launching ones continue to start). */
  adopt: string[];
  /** A machine no live server owns (stopped, never recorded): torn down. */
  stop: string[];
  /** A live record whose machine is gone: recorded stopped with reason MACHINE_LOST. */
  lost: string[];
  /** Live servers of an expired owner this instance takes over (the owner column moves to it first). */
  takeOver: string[];
}

const isLive = (status: RecordedStatus | undefined) => status === 'launching' || status === 'running';

export function planReconcile(input: ReconcileInput): ReconcilePlan {
  const status = new Map(input.servers.map((s) => [s.serverId, s.status]));
  const owner = new Map(input.servers.map((s) => [s.serverId, s.owner ?? 'mine']));
  const machines = new Set(input.machines);
  const plan: ReconcilePlan = { adopt: [], stop: [], lost: [], takeOver: [] };
  // A machine this instance sees is adopted when its server is live, torn down otherwise.
  for (const serverId of [...machines].sort()) {
    // Kubernetes sees every instance's pods: one of a live other owner is its to watch, not this one's.
    if (owner.get(serverId) === 'live') continue;
    if (!isLive(status.get(serverId))) { plan.stop.push(serverId); continue; }
    plan.adopt.push(serverId);
    if (owner.get(serverId) === 'expired') plan.takeOver.push(serverId);
  }
  for (const serverId of [...status.keys()].sort()) {
    if (!isLive(status.get(serverId)) || machines.has(serverId)) continue;
    const ownedBy = owner.get(serverId);
    // Another instance's game runs where this one cannot see it: untouched while its owner heartbeats.
    if (ownedBy === 'live') continue;
    // A dead owner's game: taken over (exactly one instance wins the owner column), then, as this runtime
    // has no machine for it, recorded lost.
    if (ownedBy === 'expired') plan.takeOver.push(serverId);
    plan.lost.push(serverId);
  }
  return plan;
}
