export * from './runtime';
export { buildGameEnv, portEnvName, type GameEnvInput } from './game-env';
export { splitArgs } from './split-args';
export { classifyLogLevel } from './log-level';
export { ProcessRuntime, type ProcessRuntimeOptions } from './process/process-runtime';
export { parseProcNet, boundInodes, parseSocketLink, parseChildPids, TCP_LISTEN, type ProcNetSocket } from './process/proc-net';
export { parseProcStat, parseVmRssBytes, type ProcStat } from './process/proc-stat';
