import { ServerLaunch, StopReason } from './events';

interface Common extends ServerLaunch {
  createdAt: string;
  updatedAt: string;
}

export type ServerState =
  | { status: 'none' }
  | (Common & { status: 'launching'; startedAt: null })
  | (Common & { status: 'running'; startedAt: string })
  | (Common & { status: 'stopped'; startedAt: string | null; stoppedAt: string; stopReason: StopReason; exitCode: number | null });

export type ActiveServerState = Extract<ServerState, { status: 'launching' | 'running' }>;
