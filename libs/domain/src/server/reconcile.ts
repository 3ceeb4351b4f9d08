// What the servers service does with the game machines it finds on start (after a crash or a restart),
// against the servers the store says are live. Pure: the caller lists both and carries the plan out.

export type RecordedStatus = 'none' | 'launching' | 'running' | 'stopped';

export interface ReconcileInput {
  /** Every server the store may consider live (and any a machine names), with its status in the store. */
  servers: { serverId: string; status: RecordedStatus }[];
  /** The servers whose machine the runtime runs now. */
  machines: string[];
}

export interface ReconcilePlan {
  /** Live record, machine still there: watched again and left running (launching ones continue to start). */
  adopt: string[];
  /** A machine no live server owns (stopped, never recorded): torn down. */
  stop: string[];
  /** A live record whose machine is gone: recorded stopped with reason MACHINE_LOST. */
  lost: string[];
}

const isLive = (status: RecordedStatus | undefined) => status === 'launching' || status === 'running';

export function planReconcile(input: ReconcileInput): ReconcilePlan {
  const status = new Map(input.servers.map((s) => [s.serverId, s.status]));
  const machines = new Set(input.machines);
  const plan: ReconcilePlan = { adopt: [], stop: [], lost: [] };
  for (const serverId of [...machines].sort()) (isLive(status.get(serverId)) ? plan.adopt : plan.stop).push(serverId);
  for (const serverId of [...status.keys()].sort()) if (isLive(status.get(serverId)) && !machines.has(serverId)) plan.lost.push(serverId);
  return plan;
}
