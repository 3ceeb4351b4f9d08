// The game machine port: start/stop a game server and watch what happens to it.
// Adapters: process (a child process on this machine) and kubernetes (one Pod per server).

export type Protocol = 'tcp' | 'udp';

export interface PortSpec {
  name: string;
  internalPort: number;
  protocol: Protocol;
  tlsEnabled: boolean;
}

export interface AllocatedPort extends PortSpec {
  /** The port the game binds (process runtime: the same as externalPort). */
  bindPort: number;
  externalPort: number;
  host: string;
}

export interface MachineSpec {
  serverId: string;
  projectId: string;
  /** Absolute path of the unpacked build directory (zip builds). */
  buildDir?: string;
  /** Path of the executable, relative to buildDir. */
  executablePath?: string;
  /** Container image (image builds; the process runtime refuses these). */
  image?: string;
  /**
   * Zip builds on the kubernetes runtime: an authenticated URL serving the unpacked build directory as a
   * tar.gz (executable bits kept), reachable from the game pods. The process runtime uses buildDir instead.
   */
  artifactUrl?: string;
  args: string[];
  /** The full environment contract (SPAWNPOINT_* and user variables), already merged. */
  env: Record<string, string>;
  ports: AllocatedPort[];
  computeSize: string;
  region: string;
  /** A warm-pool server (unclaimed when started): its pod is labelled so an operator can list the pools' pods. */
  pool?: boolean;
}

export type ExitReason = 'PROCESS_EXITED' | 'STARTUP_FAILURE_TIMEOUT' | 'SHUTDOWN_SIGNAL' | 'START_FAILED';

export type LogStream = 'stdout' | 'stderr';
export type LogLevel = 'info' | 'warn' | 'error';

export interface LogEntry {
  serverId: string;
  timestamp: Date;
  stream: LogStream;
  level: LogLevel;
  message: string;
}

export type MachineEvent =
  | { type: 'ports_bound'; serverId: string; at: Date }
  | { type: 'exited'; serverId: string; at: Date; exitCode: number | null; signal: string | null; reason: ExitReason }
  | { type: 'log'; entry: LogEntry };

export interface MachineMetrics {
  cpu_percent: number | null;
  memory_bytes: number | null;
  memory_limit_bytes: number | null;
  network_rx_bytes: number | null;
  network_tx_bytes: number | null;
  sampled_at: string;
}

/** A machine the runtime runs after recovery; `spec` when the runtime knows what it was started with. */
export interface RecoveredMachine {
  serverId: string;
  spec: MachineSpec | null;
}

export interface GameRuntime {
  readonly kind: 'process' | 'kubernetes';
  /** Reserve ports for a server about to start; they stay reserved until release(). */
  allocatePorts(serverId: string, ports: PortSpec[], region?: string): Promise<AllocatedPort[]>;
  releasePorts(serverId: string): Promise<void>;
  /** Create the machine and start the game. Resolves once spawned (not once running). */
  start(spec: MachineSpec): Promise<void>;
  /** Stop: SIGTERM, then SIGKILL after the grace period. Resolves once it is gone. Idempotent. */
  stop(serverId: string, graceMs?: number): Promise<void>;
  /** Every machine event, for every server. */
  watch(listener: (event: MachineEvent) => void): () => void;
  /** Servers this runtime currently runs. */
  running(): string[];
  /**
   * Find the machines an earlier instance started (before a crash or restart) and watch them again, like
   * its own: ports, exit, logs. Once, before the first start. Resolves with every machine it now runs.
   */
  recover(): Promise<RecoveredMachine[]>;
  /**
   * Machines this instance sees but does not watch: with the kubernetes runtime and several servers replicas,
   * the pods other instances started (or its own before a restart). Absent: a runtime sees only its own.
   */
  unwatched?(): string[];
  /** Watch a machine unwatched() lists as this instance's own (reconcile: its owner is now this instance). False: it is gone. */
  adopt?(serverId: string): boolean;
  metrics(serverId: string): Promise<MachineMetrics | null>;
  close(): Promise<void>;
}
