import { DomainEvent } from '../kit';

interface BuildIdentity {
  buildId: string;
  projectId: string;
  name: string;
  version: number;
}

export type BuildUploadRequested = DomainEvent<'BuildUploadRequested', BuildIdentity & {
  /** SHA-256 of the single-use upload token; the token itself is never stored. */
  tokenHash: string;
  expiresAt: string;
  executablePath: string | null;
  at: string;
}>;
/**
 * `uploadPath`: where the ZIP waits to be processed, so an interrupted processing can resume: the key of its
 * blob (ADR-0013; builds received before blobs hold a file path there). The name stays for stored events.
 */
export type BuildUploadReceived = DomainEvent<'BuildUploadReceived', { buildId: string; sizeBytes: number; uploadPath: string; at: string }>;
/** One line of what processing did (the build's logs). */
export interface BuildLogLine { at: string; level: 'info' | 'warn' | 'error'; message: string }
/** `log`: what processing did, oldest first (absent on events stored before build logs, and on an expired upload's failure). */
export type BuildReady = DomainEvent<'BuildReady', { buildId: string; executablePath: string; sizeBytes: number; at: string; log?: BuildLogLine[] }>;
export type BuildFailed = DomainEvent<'BuildFailed', { buildId: string; error: string; at: string; log?: BuildLogLine[] }>;
export type BuildImageRegistered = DomainEvent<'BuildImageRegistered', BuildIdentity & { image: string; at: string }>;
export type BuildDeleted = DomainEvent<'BuildDeleted', { buildId: string; projectId: string; name: string; version: number; at: string }>;

export type BuildEvent = BuildUploadRequested | BuildUploadReceived | BuildReady | BuildFailed | BuildImageRegistered | BuildDeleted;
