// On start of the servers service: the runtime's machines against the store's live servers (after a crash,
// a deploy, or a restart of the host). Machines of live servers are adopted, machines nobody owns are torn
// down, live servers without a machine are recorded stopped (MACHINE_LOST). The decision is the domain's
// pure planReconcile; this file gathers its inputs and carries it out.
import { planReconcile, RecordedStatus, ServerOwnership, ServerState } from '@spawnpoint/domain';
import { GameRuntime, LogEntry, MachineSpec } from '@spawnpoint/runtime';
import { logger } from '@spawnpoint/logging';

const log = logger('servers');

export interface ReconcileHost {
  runtime: GameRuntime;
  /** Ids of the servers the read model lists as launching or running. */
  activeServerIds(): Promise<string[]>;
  /** Each server's owner as this instance sees it (ADR-0021): its own, a live other instance's, or an expired one's. */
  ownership(serverIds: string[]): Promise<Map<string, { ownership: ServerOwnership; ownerId: string | null }>>;
  /** Take a server over from an expired owner: false when another instance won it first. */
  takeOver(serverId: string, from: string): Promise<boolean>;
  /** The server's state from its stream (the store decides, not a possibly lagging read model). */
  load(serverId: string): Promise<ServerState>;
  /** The machine is gone: record it (RecordExit with reason MACHINE_LOST). */
  recordLost(serverId: string): Promise<void>;
  /** An adopted machine: remember its spec (for crash restarts). */
  adopted(serverId: string, spec: MachineSpec | null): void;
  /** A line in the server's own logs, so its owner sees why it stopped. */
  log(projectId: string, entry: LogEntry): void;
  /** The injected clock (the lost line's timestamp). */
  now(): Date;
}

export interface ReconcileOutcome { adopted: number; stopped: number; lost: number }

// Machines no live server owns serve nobody: a short grace, as the service waits for them before serving.
const ORPHAN_GRACE_MS = 2000;

export async function reconcileMachines(host: ReconcileHost): Promise<ReconcileOutcome> {
  const recovered = await host.runtime.recover();
  const specs = new Map(recovered.map((m) => [m.serverId, m.spec]));
  const ids = [...new Set([...(await host.activeServerIds()), ...specs.keys()])];
  const states = new Map<string, ServerState>();
  // A failed read fails the start (and the service is started again): never a live game taken for a stray.
  for (const id of ids) states.set(id, await host.load(id));
  const owners = await host.ownership(ids);
  const plan = planReconcile({
    servers: ids.map((serverId) => ({ serverId, status: states.get(serverId)!.status as RecordedStatus, owner: owners.get(serverId)?.ownership })),
    machines: [...specs.keys()],
  });
  // Only the instance whose conditional update wins the owner column acts on an expired owner's server.
  const lostTakeOver = new Set<string>();
  for (const serverId of plan.takeOver) {
    if (!(await host.takeOver(serverId, owners.get(serverId)!.ownerId!))) lostTakeOver.add(serverId);
  }
  plan.adopt = plan.adopt.filter((id) => !lostTakeOver.has(id));
  plan.lost = plan.lost.filter((id) => !lostTakeOver.has(id));
  for (const serverId of plan.adopt) host.adopted(serverId, specs.get(serverId) ?? null);
  await Promise.all(plan.stop.map(async (serverId) => {
    await host.runtime.stop(serverId, ORPHAN_GRACE_MS);
    await host.runtime.releasePorts(serverId);
  }));
  const takenOver = new Set(plan.takeOver);
  for (const serverId of plan.lost) await recordLostServer(host, serverId, states.get(serverId)!, takenOver.has(serverId));
  if (plan.adopt.length + plan.stop.length + plan.lost.length > 0) {
    log.info(`servers: reconciled machines with the store: ${plan.adopt.length} adopted, ${plan.stop.length} stopped (no live server), ${plan.lost.length} lost (recorded stopped), ${plan.takeOver.length - lostTakeOver.size} taken over from expired owners, ${[...owners.values()].filter((o) => o.ownership === 'live').length} of live owners left alone`);
  }
  return { adopted: plan.adopt.length, stopped: plan.stop.length, lost: plan.lost.length };
}

/**
 * Periodically (on each lease heartbeat): the live servers of owners whose lease expired are taken over. This
 * runtime cannot run them (a process runtime cannot see another data dir's games; a pod is stopped by the
 * teardown the stop triggers): recorded stopped MACHINE_LOST, with a line in the server's logs.
 */
export async function takeOverExpired(host: ReconcileHost, expired: () => Promise<string[]>): Promise<number> {
  const ids = await expired();
  if (ids.length === 0) return 0;
  const owners = await host.ownership(ids);
  let taken = 0;
  for (const serverId of ids) {
    const owner = owners.get(serverId);
    if (owner?.ownership !== 'expired' || !(await host.takeOver(serverId, owner.ownerId!))) continue;
    const state = await host.load(serverId);
    if (state.status !== 'launching' && state.status !== 'running') continue;
    await recordLostServer(host, serverId, state, true);
    taken += 1;
  }
  if (taken > 0) log.warn(`servers: took over ${taken} live servers of expired machine owners; recorded stopped (MACHINE_LOST)`);
  return taken;
}

async function recordLostServer(host: ReconcileHost, serverId: string, state: ServerState, takenOver: boolean): Promise<void> {
  if (state.status !== 'none') {
    host.log(state.projectId, {
      serverId, timestamp: host.now(), stream: 'stderr', level: 'error',
      message: takenOver
        ? 'spawnpoint: the servers replica that ran this game server stopped heartbeating (its lease expired); another replica cannot run its machine: recorded stopped (MACHINE_LOST)'
        : 'spawnpoint: the game server was gone when the servers service restarted; recorded stopped (MACHINE_LOST)',
    });
  }
  await host.recordLost(serverId);
}

/** Orderly shutdown of the process runtime: its games are about to be stopped; their servers say so first. */
export async function recordShutdown(serverIds: string[], stop: (serverId: string) => Promise<unknown>): Promise<void> {
  await Promise.all(serverIds.map((id) => stop(id).catch(() => undefined))); // already stopped: nothing to record
}
