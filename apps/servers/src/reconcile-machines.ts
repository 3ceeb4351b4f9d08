// On start of the servers service: the runtime's machines against the store's live servers (after a crash,
// a deploy, or a restart of the host). Machines of live servers are adopted, machines nobody owns are torn
// down, live servers without a machine are recorded stopped (MACHINE_LOST); with several replicas only this
// instance's servers and those of owners whose lease expired (ADR-0021), also on every lease heartbeat. The
// decision is the domain's pure planReconcile; this file gathers its inputs and carries it out.
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
  /** A launching server of this instance whose machine never came: a new machine (true), or false to record it lost. */
  relaunch?(serverId: string): Promise<boolean>;
  /** The machine is gone: record it (RecordExit with reason MACHINE_LOST). */
  recordLost(serverId: string): Promise<void>;
  /** An adopted machine: remember its spec (for crash restarts). */
  adopted(serverId: string, spec: MachineSpec | null): void;
  /** A line in the server's own logs, so its owner sees why it stopped. */
  log(projectId: string, entry: LogEntry): void;
  /** The injected clock (the lost line's timestamp). */
  now(): Date;
}

export interface ReconcileOutcome { adopted: number; stopped: number; lost: number; takenOver: number }

// Machines no live server owns serve nobody: a short grace, as the service waits for them before serving.
const ORPHAN_GRACE_MS = 2000;

export async function reconcileMachines(host: ReconcileHost): Promise<ReconcileOutcome> {
  const recovered = await host.runtime.recover();
  const specs = new Map(recovered.map((m) => [m.serverId, m.spec]));
  // Kubernetes with several replicas: every pod of the regions, whoever watches it; the plan says which are ours.
  const machines = [...new Set([...specs.keys(), ...(host.runtime.unwatched?.() ?? [])])];
  const ids = [...new Set([...(await host.activeServerIds()), ...machines])];
  const outcome = await carryOut(host, ids, machines, specs);
  if (outcome.adopted + outcome.stopped + outcome.lost > 0) {
    log.info(`servers: reconciled machines with the store: ${outcome.adopted} adopted, ${outcome.stopped} stopped (no live server), ${outcome.lost} lost (recorded stopped), ${outcome.takenOver} taken over from expired owners, ${outcome.leftAlone} of live owners left alone`);
  }
  return { adopted: outcome.adopted, stopped: outcome.stopped, lost: outcome.lost, takenOver: outcome.takenOver };
}

/**
 * Periodically (on each lease heartbeat): the live servers of owners whose lease expired are taken over, by
 * the same plan. A pod this instance sees is adopted and runs on (Kubernetes: pods outlive their servers
 * replica, and a rolling upgrade renames every replica); a server without a machine it can see is recorded
 * stopped MACHINE_LOST (a process runtime cannot see another data dir's games).
 */
export async function takeOverExpired(host: ReconcileHost, expired: () => Promise<string[]>): Promise<ReconcileOutcome> {
  const ids = await expired();
  if (ids.length === 0) return { adopted: 0, stopped: 0, lost: 0, takenOver: 0 };
  const seen = new Set(host.runtime.unwatched?.() ?? []);
  const outcome = await carryOut(host, ids, ids.filter((id) => seen.has(id)), new Map());
  if (outcome.takenOver > 0) {
    log.warn(`servers: took over ${outcome.takenOver} live servers of expired machine owners; recorded stopped (MACHINE_LOST): ${outcome.lost}, adopted (their pods run on): ${outcome.adopted}`);
  }
  return { adopted: outcome.adopted, stopped: outcome.stopped, lost: outcome.lost, takenOver: outcome.takenOver };
}

/** planReconcile over these servers and machines, carried out. */
async function carryOut(host: ReconcileHost, ids: string[], machines: string[], specs: Map<string, MachineSpec | null>) {
  const states = new Map<string, ServerState>();
  // A failed read fails the start (and the service is started again): never a live game taken for a stray.
  for (const id of ids) states.set(id, await host.load(id));
  const owners = await host.ownership(ids);
  const plan = planReconcile({
    servers: ids.map((serverId) => ({ serverId, status: states.get(serverId)!.status as RecordedStatus, owner: owners.get(serverId)?.ownership })),
    machines,
  });
  // Only the instance whose conditional update wins the owner column acts on an expired owner's server.
  const lostTakeOver = new Set<string>();
  for (const serverId of plan.takeOver) {
    if (!(await host.takeOver(serverId, owners.get(serverId)!.ownerId!))) lostTakeOver.add(serverId);
  }
  const adopt = plan.adopt.filter((id) => !lostTakeOver.has(id));
  const lost = plan.lost.filter((id) => !lostTakeOver.has(id));
  const adopted: string[] = [];
  for (const serverId of adopt) {
    // A pod this instance does not watch yet (another instance's, or its own before a restart) is watched
    // from now on; one that went in the meantime is lost.
    if (!specs.has(serverId) && host.runtime.adopt && !host.runtime.adopt(serverId)) lost.push(serverId);
    else adopted.push(serverId);
  }
  for (const serverId of adopted) host.adopted(serverId, specs.get(serverId) ?? null);
  await Promise.all(plan.stop.map(async (serverId) => {
    await host.runtime.stop(serverId, ORPHAN_GRACE_MS);
    await host.runtime.releasePorts(serverId);
  }));
  const takenOver = new Set(plan.takeOver);
  // Its own server that never ran (started, not yet spawned when this process died; a retried start may have
  // been answered with it) is launched again rather than recorded lost. Another owner's is never: its game may
  // still run where this instance cannot see it.
  let relaunched = 0;
  for (const serverId of lost) {
    const state = states.get(serverId)!;
    if (!takenOver.has(serverId) && state.status === 'launching' && state.startedAt === null && host.relaunch
      && (await host.relaunch(serverId).catch((err) => (log.warn({ err }, `servers: relaunching ${serverId} failed; recorded lost`), false)))) {
      relaunched += 1;
      continue;
    }
    await recordLostServer(host, serverId, state, takenOver.has(serverId));
  }
  return {
    adopted: adopted.length + relaunched, stopped: plan.stop.length, lost: lost.length - relaunched, takenOver: plan.takeOver.length - lostTakeOver.size,
    leftAlone: [...owners.values()].filter((o) => o.ownership === 'live').length,
  };
}

async function recordLostServer(host: ReconcileHost, serverId: string, state: ServerState, takenOver: boolean): Promise<void> {
  if (state.status !== 'none') {
    host.log(state.projectId, {
      serverId, timestamp: host.now(), stream: 'stderr', level: 'error',
      message: takenOver
        ? `spawnpoint: the servers replica that ran this game server stopped heartbeating (its lease expired) and ${host.runtime.kind === 'kubernetes' ? 'its pod is gone' : 'another replica cannot run its machine'}: recorded stopped (MACHINE_LOST)`
        : 'spawnpoint: the game server was gone when the servers service restarted; recorded stopped (MACHINE_LOST)',
    });
  }
  await host.recordLost(serverId);
}

/** Orderly shutdown of the process runtime: its games are about to be stopped; their servers say so first. */
export async function recordShutdown(serverIds: string[], stop: (serverId: string) => Promise<unknown>): Promise<void> {
  await Promise.all(serverIds.map((id) => stop(id).catch(() => undefined))); // already stopped: nothing to record
}
