import { BuildEvent } from './events';
import { BuildInfo, BuildState } from './state';

function info(state: BuildState): BuildInfo | null {
  if (state.status === 'none') return null;
  const { buildId, projectId, name, version, createdAt, updatedAt } = state;
  return { buildId, projectId, name, version, createdAt, updatedAt };
}

export function evolve(state: BuildState, event: BuildEvent): BuildState {
  const base = info(state);
  switch (event.type) {
    case 'BuildUploadRequested': {
      const { at, tokenHash, expiresAt, executablePath, buildId, projectId, name, version } = event.data;
      return { status: 'uploading', buildId, projectId, name, version, createdAt: at, updatedAt: at, tokenHash, expiresAt, executablePath };
    }
    case 'BuildImageRegistered': {
      const { at, image, buildId, projectId, name, version } = event.data;
      return { status: 'ready', kind: 'image', buildId, projectId, name, version, createdAt: at, updatedAt: at, image };
    }
    case 'BuildUploadReceived':
      if (!base || state.status !== 'uploading') return state;
      return { ...base, status: 'processing', executablePath: state.executablePath, sizeBytes: event.data.sizeBytes, uploadPath: event.data.uploadPath, updatedAt: event.data.at };
    case 'BuildReady':
      if (!base) return state;
      return { ...base, status: 'ready', kind: 'zip', executablePath: event.data.executablePath, sizeBytes: event.data.sizeBytes, updatedAt: event.data.at };
    case 'BuildFailed':
      if (!base) return state;
      return { ...base, status: 'failed', error: event.data.error, updatedAt: event.data.at };
    case 'BuildDeleted':
      if (!base) return state;
      return { ...base, status: 'deleted', updatedAt: event.data.at };
  }
}
