import type { V1Pod } from '@kubernetes/client-node';
import type { MachineEvent } from '../runtime';
import { podEvents } from './pod-events';
import {
  basePod, condition, container, deleting, exitedPod, readyPod, SERVER_ID, startedPod, terminated, unschedulablePod, waitingPod, withStatus,
} from './testing/pod-states';

const NOW = new Date('2026-01-01T00:05:00Z');
const exitedOf = (events: MachineEvent[]) => events.filter((e) => e.type === 'exited');
const logsOf = (events: MachineEvent[]) => events.flatMap((e) => (e.type === 'log' ? [e.entry] : []));

/** Feed a pod's states in order (undefined: deleted), as the watch does; every event that came out. */
function replay(...states: Array<V1Pod | undefined>): MachineEvent[] {
  const events: MachineEvent[] = [];
  let previous: V1Pod | undefined;
  for (const state of states) {
    events.push(...podEvents(previous, state, NOW));
    previous = state;
  }
  return events;
}

describe('podEvents', () => {
  const pod = basePod();

  it('reports ports_bound when the pod becomes ready, once', () => {
    const events = replay(pod, startedPod(pod), readyPod(pod), readyPod(pod), readyPod(pod));
    expect(events.filter((e) => e.type === 'ports_bound')).toEqual([{ type: 'ports_bound', serverId: SERVER_ID, at: NOW }]);
    expect(exitedOf(events)).toHaveLength(0);
  });

  it('does not report a started but unready game as bound', () => {
    expect(replay(pod, startedPod(pod)).filter((e) => e.type === 'ports_bound')).toHaveLength(0);
  });

  it('falls back to every container being ready when the pod has no Ready condition yet', () => {
    const bare = withStatus(pod, { phase: 'Running', containerStatuses: [container('game', { running: {} }, true)] });
    expect(podEvents(pod, bare, NOW).map((e) => e.type)).toContain('ports_bound');
  });

  it('reports a game that exits by itself as PROCESS_EXITED with its exit code, once, whatever follows', () => {
    const events = replay(pod, startedPod(pod), readyPod(pod), exitedPod(pod, 3), deleting(exitedPod(pod, 3)), undefined);
    expect(exitedOf(events)).toEqual([{ type: 'exited', serverId: SERVER_ID, at: NOW, exitCode: 3, signal: null, reason: 'PROCESS_EXITED' }]);
    expect(logsOf(events).filter((l) => l.level === 'error')).toHaveLength(0);
  });

  it('reports the signal a container was killed by, when the runtime gives one', () => {
    const killed = withStatus(pod, { phase: 'Failed', containerStatuses: [container('game', terminated(137, 'Error', { signal: 9 }))] });
    expect(exitedOf(podEvents(readyPod(pod), killed, NOW))).toMatchObject([{ exitCode: 137, signal: 'SIGKILL' }]);
  });

  it('reports a stopped pod (deleted by us, no disruption) as SHUTDOWN_SIGNAL with the game\'s exit code', () => {
    const ready = readyPod(pod);
    const stopping = deleting(ready);
    const events = replay(pod, ready, stopping, exitedPod(stopping, 0), undefined);
    expect(exitedOf(events)).toEqual([{ type: 'exited', serverId: SERVER_ID, at: NOW, exitCode: 0, signal: null, reason: 'SHUTDOWN_SIGNAL' }]);
    expect(logsOf(events).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('reports a stopped pod whose final state was not seen as SHUTDOWN_SIGNAL without exit code', () => {
    const ready = readyPod(pod);
    expect(exitedOf(replay(pod, ready, deleting(ready), undefined))).toEqual([
      { type: 'exited', serverId: SERVER_ID, at: NOW, exitCode: null, signal: null, reason: 'SHUTDOWN_SIGNAL' },
    ]);
  });

  it('reports an eviction by the kubelet as PROCESS_EXITED and says why in the logs', () => {
    const evicted = withStatus(pod, {
      phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.',
      containerStatuses: [container('game', terminated(137))],
    });
    const events = replay(pod, readyPod(pod), evicted, undefined);
    expect(exitedOf(events)).toEqual([{ type: 'exited', serverId: SERVER_ID, at: NOW, exitCode: 137, signal: null, reason: 'PROCESS_EXITED' }]);
    expect(logsOf(events)).toEqual([expect.objectContaining({
      serverId: SERVER_ID, level: 'error', stream: 'stderr', message: 'spawnpoint: the pod was evicted by its node: The node was low on resource: memory.',
    })]);
    // The explanation comes before the exit.
    expect(events.findIndex((e) => e.type === 'log')).toBeLessThan(events.findIndex((e) => e.type === 'exited'));
  });

  it('reports a drain or preemption (DisruptionTarget, then deletion) as PROCESS_EXITED, not as our stop', () => {
    const ready = readyPod(pod);
    const drained = withStatus(deleting(ready), {
      ...ready.status,
      conditions: [...ready.status!.conditions!, condition('DisruptionTarget', 'True', 'EvictionByEvictionAPI', 'Eviction API: evicting')],
    });
    const events = replay(pod, ready, drained, undefined);
    expect(exitedOf(events)).toMatchObject([{ reason: 'PROCESS_EXITED', exitCode: null }]);
    expect(logsOf(events).map((l) => l.message)).toEqual(['spawnpoint: the pod was disrupted by Kubernetes (EvictionByEvictionAPI): Eviction API: evicting']);
  });

  it('reports a lost node (phase Unknown) as PROCESS_EXITED with an explanation, and its later deletion as nothing new', () => {
    const lost = withStatus(pod, { phase: 'Unknown', reason: 'NodeLost', message: 'Node kind-worker which was running pod is unresponsive' });
    const events = replay(pod, readyPod(pod), lost, deleting(lost), undefined);
    expect(exitedOf(events)).toMatchObject([{ reason: 'PROCESS_EXITED', exitCode: null, signal: null }]);
    expect(logsOf(events)[0].message).toMatch(/node lost.*unresponsive/);
  });

  it('reports a pod deleted without a graceful delete (force-deleted, node gone) as PROCESS_EXITED', () => {
    const events = replay(pod, readyPod(pod), undefined);
    expect(exitedOf(events)).toMatchObject([{ reason: 'PROCESS_EXITED', exitCode: null }]);
    expect(logsOf(events)[0].message).toMatch(/disappeared while the game ran/);
  });

  it.each([
    ['game', 'ErrImagePull', 'pull access denied for acme/game'],
    ['game', 'ImagePullBackOff', 'Back-off pulling image "acme/game:1"'],
    ['game', 'InvalidImageName', 'couldn\'t parse image name'],
    ['game', 'CreateContainerConfigError', 'secret "x" not found'],
    ['fetch', 'ErrImagePull', 'busybox: not found'],
  ])('reports %s waiting with %s as START_FAILED', (name, reason, message) => {
    const events = replay(pod, waitingPod(pod, name, reason, message), undefined);
    expect(exitedOf(events)).toEqual([{ type: 'exited', serverId: SERVER_ID, at: NOW, exitCode: null, signal: null, reason: 'START_FAILED' }]);
    expect(logsOf(events).map((l) => l.message)).toEqual([`spawnpoint: container ${name} cannot start: ${reason}: ${message}`]);
  });

  it('reports a build that could not be fetched (init container failed) as START_FAILED with its last output', () => {
    const failed = withStatus(pod, {
      phase: 'Failed',
      initContainerStatuses: [container('fetch', terminated(1, 'Error', { message: 'wget: server returned error: HTTP/1.1 403 Forbidden\n' }))],
      containerStatuses: [container('game', { waiting: { reason: 'PodInitializing' } })],
    });
    const events = replay(pod, failed, undefined);
    expect(exitedOf(events)).toMatchObject([{ reason: 'START_FAILED' }]);
    expect(logsOf(events)[0].message).toBe('spawnpoint: the build could not be fetched (exit 1): wget: server returned error: HTTP/1.1 403 Forbidden');
  });

  it('reports an executable that cannot run (StartError) as START_FAILED', () => {
    const failed = withStatus(pod, {
      phase: 'Failed', containerStatuses: [container('game', terminated(128, 'StartError', { message: 'exec: "/game/bin/server": permission denied' }))],
    });
    const events = podEvents(pod, failed, NOW);
    expect(exitedOf(events)).toMatchObject([{ reason: 'START_FAILED', exitCode: null }]);
    expect(logsOf(events)[0].message).toMatch(/could not be started: StartError: exec.*permission denied/);
  });

  it('reports a pod that failed before the game ran as START_FAILED', () => {
    const evictedEarly = withStatus(pod, { phase: 'Failed', reason: 'Evicted', message: 'ephemeral storage', containerStatuses: [container('game', { waiting: { reason: 'ContainerCreating' } })] });
    expect(exitedOf(podEvents(pod, evictedEarly, NOW))).toMatchObject([{ reason: 'START_FAILED' }]);
  });

  it('says when the game ran out of memory', () => {
    const events = podEvents(readyPod(pod), exitedPod(pod, 137, 'OOMKilled'), NOW);
    expect(exitedOf(events)).toMatchObject([{ reason: 'PROCESS_EXITED', exitCode: 137 }]);
    expect(logsOf(events)[0].message).toBe('spawnpoint: the game was killed for running out of memory (limit 1024Mi)');
  });

  it('says once why the pod waits for a node, and again only when the reason changes', () => {
    const noPorts = '0/3 nodes are available: 3 node(s) didn\'t have free ports for the requested pod ports.';
    const other = unschedulablePod(pod, '0/3 nodes are available: 3 Insufficient memory.');
    const events = replay(pod, unschedulablePod(pod, noPorts), unschedulablePod(pod, noPorts), other);
    expect(logsOf(events).map((l) => [l.level, l.message])).toEqual([
      ['warn', 'spawnpoint: waiting for a node: 0/3 nodes are available: 3 node(s) didn\'t have free ports for the requested pod ports.'],
      ['warn', 'spawnpoint: waiting for a node: 0/3 nodes are available: 3 Insufficient memory.'],
    ]);
    expect(exitedOf(events)).toHaveLength(0);
  });

  it('reports a pod first seen already finished (adopted after a restart)', () => {
    expect(exitedOf(podEvents(undefined, exitedPod(pod, 0), NOW))).toMatchObject([{ reason: 'PROCESS_EXITED', exitCode: 0 }]);
  });

  it('ignores pods that are not game servers, and deletions of pods never seen', () => {
    const stranger = { ...pod, metadata: { name: 'other', labels: {}, annotations: {} } };
    expect(podEvents(undefined, readyPod(stranger), NOW)).toEqual([]);
    expect(podEvents(undefined, undefined, NOW)).toEqual([]);
  });

  it('never reports two exits for one pod along any realistic life', () => {
    const ready = readyPod(pod);
    const lives: Array<Array<V1Pod | undefined>> = [
      [pod, startedPod(pod), ready, exitedPod(pod, 0), undefined],
      [pod, ready, deleting(ready), exitedPod(deleting(ready), 143), deleting(exitedPod(deleting(ready), 143)), undefined],
      [pod, waitingPod(pod, 'game', 'ErrImagePull', 'x'), waitingPod(pod, 'game', 'ImagePullBackOff', 'x'), deleting(waitingPod(pod, 'game', 'ImagePullBackOff', 'x')), undefined],
      [pod, ready, withStatus(pod, { phase: 'Unknown' }), undefined],
      [pod, undefined],
    ];
    for (const life of lives) expect(exitedOf(replay(...life))).toHaveLength(1);
  });
});
