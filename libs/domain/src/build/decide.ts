import { conflict, DomainError, forbidden, notFound } from '../kit';
import { BuildCommand } from './commands';
import { BuildEvent, BuildLogLine } from './events';
import { BuildState } from './state';

export const UPLOAD_EXPIRED = 'the upload URL expired before a ZIP was uploaded; request a new upload URL';

/** Only a non-empty log goes onto the event. */
const logOf = (log: BuildLogLine[] | undefined) => (log && log.length > 0 ? { log } : {});

export function decide(command: BuildCommand, state: BuildState): BuildEvent[] {
  switch (command.type) {
    case 'RequestUpload': {
      if (state.status !== 'none') throw conflict('build already exists');
      const { type: _t, now, ...data } = command;
      return [{ type: 'BuildUploadRequested', data: { ...data, at: now } }];
    }
    case 'RegisterImage': {
      if (state.status !== 'none') throw conflict('build already exists');
      const { type: _t, now, ...data } = command;
      return [{ type: 'BuildImageRegistered', data: { ...data, at: now } }];
    }
    case 'ReceiveUpload':
      // A used, expired or wrong token is indistinguishable to the caller: 403.
      if (state.status !== 'uploading' || state.tokenHash !== command.tokenHash) {
        throw forbidden('upload URL is invalid or was already used');
      }
      if (command.now > state.expiresAt) throw forbidden('upload URL has expired; request a new one');
      return [{ type: 'BuildUploadReceived', data: { buildId: state.buildId, sizeBytes: command.sizeBytes, uploadPath: command.uploadPath, at: command.now } }];
    case 'CompleteProcessing':
      if (state.status !== 'processing') throw conflict(`build is ${state.status}, not processing`);
      return [{ type: 'BuildReady', data: { buildId: state.buildId, executablePath: command.executablePath, sizeBytes: command.sizeBytes, at: command.now, ...logOf(command.log) } }];
    case 'FailProcessing':
      if (state.status !== 'processing') throw conflict(`build is ${state.status}, not processing`);
      return [{ type: 'BuildFailed', data: { buildId: state.buildId, error: command.error, at: command.now, ...logOf(command.log) } }];
    case 'ExpireUpload':
      // Idempotent: a build that moved on, or whose URL is still valid, is left alone.
      if (state.status !== 'uploading' || command.now <= state.expiresAt) return [];
      return [{ type: 'BuildFailed', data: { buildId: state.buildId, error: UPLOAD_EXPIRED, at: command.now } }];
    case 'DeleteBuild':
      if (state.status === 'none' || state.status === 'deleted') throw notFound('build');
      if (command.inUse) throw new DomainError('conflict', 'build is used by an active server');
      return [{ type: 'BuildDeleted', data: { buildId: state.buildId, projectId: state.projectId, name: state.name, version: state.version, at: command.now } }];
  }
}
