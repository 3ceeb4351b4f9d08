// Pod states as the API server reports them along a game's life, built on a real podFor() pod.
import type { V1ContainerState, V1ContainerStatus, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { podFor } from '../pod-for';
import { machineSpec, testSettings, type SpecInput } from './fixtures';

export const SERVER_ID = '5e0c9a1d-7b2f-4c66-a3d4-91e8f0b2c7aa';

let rv = 100;

export function basePod(input: SpecInput = {}): V1Pod {
  const pod = podFor(machineSpec({ serverId: SERVER_ID, ...input }), testSettings());
  pod.metadata!.uid = 'uid-1';
  return withStatus(pod, { phase: 'Pending' });
}

export const unschedulablePod = (pod: V1Pod, message: string) =>
  withStatus(pod, { phase: 'Pending', conditions: [condition('PodScheduled', 'False', 'Unschedulable', message)] });

export function withStatus(pod: V1Pod, status: V1Pod['status'], metadata: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  return { ...pod, metadata: { ...pod.metadata, resourceVersion: String(++rv), ...metadata }, status };
}

export function condition(type: string, status: 'True' | 'False', reason?: string, message?: string): V1PodCondition {
  return { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

export function container(name: string, state: V1ContainerState, ready = false, extra: Partial<V1ContainerStatus> = {}): V1ContainerStatus {
  return { name, image: 'img', imageID: '', restartCount: 0, ready, state, ...extra };
}

const scheduled = condition('PodScheduled', 'True');
const running = { running: { startedAt: new Date('2026-01-01T00:00:01Z') } };
export const terminated = (exitCode: number, reason = exitCode === 0 ? 'Completed' : 'Error', extra: object = {}) =>
  ({ terminated: { exitCode, reason, startedAt: new Date('2026-01-01T00:00:01Z'), finishedAt: new Date('2026-01-01T00:01:00Z'), ...extra } });
const fetched = container('fetch', terminated(0));

/** The game container started; readiness not yet passed. */
export const startedPod = (pod: V1Pod) => withStatus(pod, {
  phase: 'Running', conditions: [scheduled, condition('Ready', 'False', 'ContainersNotReady')],
  initContainerStatuses: [fetched], containerStatuses: [container('game', running)],
});

export const readyPod = (pod: V1Pod) => withStatus(pod, {
  phase: 'Running', conditions: [scheduled, condition('Ready', 'True')],
  initContainerStatuses: [fetched], containerStatuses: [container('game', running, true)],
});

export const exitedPod = (pod: V1Pod, exitCode: number, reason?: string) => withStatus(pod, {
  phase: exitCode === 0 ? 'Succeeded' : 'Failed', conditions: [scheduled, condition('Ready', 'False', 'PodCompleted')],
  initContainerStatuses: [fetched], containerStatuses: [container('game', terminated(exitCode, reason))],
}, { deletionTimestamp: pod.metadata?.deletionTimestamp });

/** Deleted by a client (graceful): the pod stays until the kubelet confirms. */
export const deleting = (pod: V1Pod) => withStatus(pod, pod.status, { deletionTimestamp: new Date('2026-01-01T00:02:00Z'), deletionGracePeriodSeconds: 30 });

export const waitingPod = (pod: V1Pod, name: string, reason: string, message: string) => withStatus(pod, {
  phase: 'Pending', conditions: [scheduled],
  initContainerStatuses: name === 'fetch' ? [container('fetch', { waiting: { reason, message } })] : [fetched],
  containerStatuses: [container('game', name === 'game' ? { waiting: { reason, message } } : { waiting: { reason: 'PodInitializing' } })],
});
