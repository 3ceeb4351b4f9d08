import { BuildLogLine } from './events';

export type BuildCommand =
  | { type: 'RequestUpload'; buildId: string; projectId: string; name: string; version: number; tokenHash: string; expiresAt: string; executablePath: string | null; now: string }
  | { type: 'ReceiveUpload'; tokenHash: string; sizeBytes: number; uploadPath: string; now: string }
  /** `log`: the lines processing wrote (they go onto the event: the build's logs survive any restart). */
  | { type: 'CompleteProcessing'; executablePath: string; sizeBytes: number; log?: BuildLogLine[]; now: string }
  | { type: 'FailProcessing'; error: string; log?: BuildLogLine[]; now: string }
  /** The upload URL's time is up and no ZIP arrived: the build fails (a sweep sends it; anything else is a no-op). */
  | { type: 'ExpireUpload'; now: string }
  | { type: 'RegisterImage'; buildId: string; projectId: string; name: string; version: number; image: string; now: string }
  /** `inUse`: whether an active server runs this build (asked of the servers service by the handler). */
  | { type: 'DeleteBuild'; inUse: boolean; now: string };
