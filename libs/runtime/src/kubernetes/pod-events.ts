// From pod watch updates to the port's machine events. Pure: given the pod before and after an update
// (after = undefined: deleted), say what happened to the game. A pod is reported exited when it first
// reaches a terminal state, so one pod's updates in order give exactly one `exited`.
import { constants } from 'node:os';
import type { V1ContainerStatus, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import type { ExitReason, LogLevel, MachineEvent } from '../runtime';
import { ANNOTATION_SERVER_ID, FETCH_CONTAINER, GAME_CONTAINER, LABEL_SERVER } from './labels';

interface Outcome {
  reason: ExitReason;
  exitCode: number | null;
  signal: string | null;
  /** Why, in words, for the server's logs. */
  explanation?: string;
}

// Waiting reasons after which the kubelet will not get the container going by itself in time.
const START_FAILURES = new Set([
  'ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull',
  'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError',
]);
// Terminated reasons of a container whose process never ran (e.g. the executable is missing).
const NEVER_RAN = new Set(['StartError', 'ContainerCannotRun']);

export function podEvents(previous: V1Pod | undefined, current: V1Pod | undefined, now: Date): MachineEvent[] {
  const pod = current ?? previous;
  const serverId = pod && serverIdOf(pod);
  if (!serverId) return [];
  const events: MachineEvent[] = [];
  const log = (level: LogLevel, message: string) => {
    events.push({ type: 'log', entry: { serverId, timestamp: now, stream: 'stderr', level, message: `spawnpoint: ${message}` } });
  };

  if (!current) {
    if (!previous || outcomeOf(previous)) return [];
    const outcome = deletedOutcome(previous);
    if (outcome.explanation) log('error', outcome.explanation);
    events.push({ type: 'exited', serverId, at: now, exitCode: outcome.exitCode, signal: outcome.signal, reason: outcome.reason });
    return events;
  }

  const waiting = unschedulable(current);
  if (waiting && waiting !== (previous && unschedulable(previous))) log('warn', `waiting for a node: ${waiting}`);

  const outcome = outcomeOf(current);
  if (outcome) {
    if (previous && outcomeOf(previous)) return events;
    if (outcome.explanation) log('error', outcome.explanation);
    events.push({ type: 'exited', serverId, at: now, exitCode: outcome.exitCode, signal: outcome.signal, reason: outcome.reason });
    return events;
  }
  if (isReady(current) && !(previous && isReady(previous)) && !current.metadata?.deletionTimestamp) {
    events.push({ type: 'ports_bound', serverId, at: now });
  }
  return events;
}

export function serverIdOf(pod: V1Pod): string | undefined {
  return pod.metadata?.annotations?.[ANNOTATION_SERVER_ID] ?? pod.metadata?.labels?.[LABEL_SERVER];
}

/** How the game ended, if this pod state is terminal; null while it may still run (or start). */
export function outcomeOf(pod: V1Pod): Outcome | null {
  const status = pod.status ?? {};
  const fetch = status.initContainerStatuses?.find((c) => c.name === FETCH_CONTAINER);
  const fetchEnd = fetch?.state?.terminated;
  if (fetchEnd && fetchEnd.exitCode !== 0) {
    return startFailed(`the build could not be fetched (exit ${fetchEnd.exitCode})${detail(fetchEnd.message)}`);
  }
  for (const container of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const waiting = container.state?.waiting;
    if (waiting?.reason && START_FAILURES.has(waiting.reason)) {
      return startFailed(`container ${container.name} cannot start: ${waiting.reason}${detail(waiting.message)}`);
    }
  }

  const game = gameStatus(pod);
  const ended = game?.state?.terminated;
  if (ended) {
    if (ended.reason && NEVER_RAN.has(ended.reason)) return startFailed(`the game could not be started: ${ended.reason}${detail(ended.message)}`);
    const exit = { exitCode: ended.exitCode ?? null, signal: signalName(ended.signal) };
    const disruption = disruptionOf(pod);
    if (disruption) return { reason: 'PROCESS_EXITED', ...exit, explanation: disruption };
    if (pod.metadata?.deletionTimestamp) return { reason: 'SHUTDOWN_SIGNAL', ...exit };
    if (ended.reason === 'OOMKilled') {
      const limit = pod.spec?.containers.find((c) => c.name === GAME_CONTAINER)?.resources?.limits?.memory;
      return { reason: 'PROCESS_EXITED', ...exit, explanation: `the game was killed for running out of memory${limit ? ` (limit ${limit})` : ''}` };
    }
    return { reason: 'PROCESS_EXITED', ...exit };
  }

  if (status.phase === 'Failed') {
    const why = disruptionOf(pod) ?? `the pod failed${detail([status.reason, status.message].filter(Boolean).join(': '))}`;
    // Failed before the game ever ran (e.g. evicted while pulling): it never started.
    return everRan(game) ? { reason: 'PROCESS_EXITED', exitCode: null, signal: null, explanation: why } : startFailed(why);
  }
  if (status.phase === 'Succeeded') return { reason: 'PROCESS_EXITED', exitCode: null, signal: null };
  if (status.phase === 'Unknown' || status.reason === 'NodeLost') {
    return {
      reason: 'PROCESS_EXITED', exitCode: null, signal: null,
      explanation: `the node running the game stopped reporting (node lost)${detail(status.message)}; the game is presumed gone`,
    };
  }
  return null;
}

/** A pod deleted before it reached a terminal state. */
function deletedOutcome(pod: V1Pod): Outcome {
  const disruption = disruptionOf(pod);
  if (disruption) return { reason: 'PROCESS_EXITED', exitCode: null, signal: null, explanation: disruption };
  // A graceful delete nobody else claims (no DisruptionTarget) is a stop: ours, or an operator's kubectl delete.
  if (pod.metadata?.deletionTimestamp) return { reason: 'SHUTDOWN_SIGNAL', exitCode: null, signal: null };
  return {
    reason: 'PROCESS_EXITED', exitCode: null, signal: null,
    explanation: 'the pod disappeared while the game ran (force-deleted, or its node was removed); the game is presumed gone',
  };
}

/** Why Kubernetes itself ended the pod (eviction, preemption, node drain, taints), or null. */
function disruptionOf(pod: V1Pod): string | null {
  const status = pod.status ?? {};
  if (status.reason === 'Evicted') return `the pod was evicted by its node${detail(status.message)}`;
  const target = pod.status?.conditions?.find((c: V1PodCondition) => c.type === 'DisruptionTarget' && c.status === 'True');
  if (target) return `the pod was disrupted by Kubernetes (${target.reason ?? 'DisruptionTarget'})${detail(target.message)}`;
  return null;
}

/** Ready: the pod's Ready condition (every container ready, readiness probes passed) or, before it exists, every container ready. */
export function isReady(pod: V1Pod): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready) return ready.status === 'True';
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length > 0 && statuses.every((c) => c.ready);
}

/** The scheduler's reason for not placing the pod yet, or null. */
function unschedulable(pod: V1Pod): string | null {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable' ? (scheduled.message ?? 'no node fits') : null;
}

export function gameStatus(pod: V1Pod): V1ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === GAME_CONTAINER);
}

const everRan = (game: V1ContainerStatus | undefined) => Boolean(game?.state?.running || game?.state?.terminated || game?.lastState?.terminated);

const startFailed = (explanation: string): Outcome => ({ reason: 'START_FAILED', exitCode: null, signal: null, explanation });

const detail = (text: string | undefined) => (text ? `: ${text.trim()}` : '');

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

function signalName(signal: number | undefined): string | null {
  return signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
}
