export * from './runtime';
export { buildGameEnv, portEnvName, type GameEnvInput } from './game-env';
export { splitArgs } from './split-args';
export { classifyLogLevel } from './log-level';
export { ProcessRuntime, type ProcessRuntimeOptions } from './process/process-runtime';
export { parseProcNet, boundInodes, parseSocketLink, parseChildPids, TCP_LISTEN, type ProcNetSocket } from './process/proc-net';
export { parseProcStat, parseVmRssBytes, type ProcStat } from './process/proc-stat';
export { KubernetesRuntime, type KubernetesRuntimeOptions } from './kubernetes/kubernetes-runtime';
export type { HostPortLedger } from './kubernetes/host-port-ledger';
export {
  loadKubernetesSettings, parseKubernetesSettings, SETTINGS_ENV as KUBERNETES_SETTINGS_ENV, SETTINGS_DEFAULTS as KUBERNETES_SETTINGS_DEFAULTS,
  type KubernetesRegionSettings, type KubernetesRuntimeSettings, type LogStreams,
} from './kubernetes/settings';
export { podFor, resourcesFor, containerPorts, portNames } from './kubernetes/pod-for';
export { podEvents, outcomeOf } from './kubernetes/pod-events';
