// On start of the servers service: the runtime's machines against the store's live servers (after a crash,
// a deploy, or a restart of the host). Machines of live servers are adopted, machines nobody owns are torn
// down, live servers without a machine are recorded stopped (MACHINE_LOST). The decision is the domain's
// pure planReconcile; this file gathers its inputs and carries it out.
import { planReconcile, RecordedStatus, ServerState } from '@spawnpoint/domain';
import { GameRuntime, LogEntry, MachineSpec } from '@spawnpoint/runtime';
import { logger } from '@spawnpoint/logging';

const log = logger('servers');

export interface ReconcileHost {
  runtime: GameRuntime;
  /** Ids of the servers the read model lists as launching or running. */
  activeServerIds(): Promise<string[]>;
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
  const plan = planReconcile({
    servers: ids.map((serverId) => ({ serverId, status: states.get(serverId)!.status as RecordedStatus })),
    machines: [...specs.keys()],
  });
  for (const serverId of plan.adopt) host.adopted(serverId, specs.get(serverId) ?? null);
  await Promise.all(plan.stop.map(async (serverId) => {
    await host.runtime.stop(serverId, ORPHAN_GRACE_MS);
    await host.runtime.releasePorts(serverId);
  }));
  for (const serverId of plan.lost) {
    const state = states.get(serverId)!;
    if (state.status !== 'none') {
      host.log(state.projectId, {
        serverId, timestamp: host.now(), stream: 'stderr', level: 'error',
        message: 'spawnpoint: the game server was gone when the servers service restarted; recorded stopped (MACHINE_LOST)',
      });
    }
    await host.recordLost(serverId);
  }
  if (plan.adopt.length + plan.stop.length + plan.lost.length > 0) {
    log.info(`servers: reconciled machines with the store: ${plan.adopt.length} adopted, ${plan.stop.length} stopped (no live server), ${plan.lost.length} lost (recorded stopped)`);
  }
  return { adopted: plan.adopt.length, stopped: plan.stop.length, lost: plan.lost.length };
}

/** Orderly shutdown of the process runtime: its games are about to be stopped; their servers say so first. */
export async function recordShutdown(serverIds: string[], stop: (serverId: string) => Promise<unknown>): Promise<void> {
  await Promise.all(serverIds.map((id) => stop(id).catch(() => undefined))); // already stopped: nothing to record
}
