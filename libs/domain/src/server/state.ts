import { GameStatus, ServerLaunch, StopReason } from './events';

interface Common extends ServerLaunch {
  createdAt: string;
  updatedAt: string;
  /** Crash restarts of the current machine (auto_restart). */
  restarts: number;
  poolClaimedAt: string | null;
  /** The current machine's last report (ADR-0016); null until it reports, and again after a crash or restart. */
  gameStatus: GameStatus | null;
}

export type ServerState =
  | { status: 'none' }
  /** startedAt is kept while a crashed game restarts on the same machine. */
  | (Common & { status: 'launching'; startedAt: string | null })
  | (Common & { status: 'running'; startedAt: string })
  | (Common & { status: 'stopped'; startedAt: string | null; stoppedAt: string; stopReason: StopReason; exitCode: number | null });

export type ActiveServerState = Extract<ServerState, { status: 'launching' | 'running' }>;
