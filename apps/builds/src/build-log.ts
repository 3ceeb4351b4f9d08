// A build's logs (GET /v3/builds/{id}/logs): lines derived from its events. The lifecycle events say what
// happened to the upload; the ready and failed events carry what processing did (BuildProcessing writes
// them onto the event), so the logs are as durable as the build itself and rebuild with the read model.
import type { BuildEvent, BuildLogLine } from '@spawnpoint/domain';

const image = (ref: string) => `container image ${ref}`;

/** The lines an event adds to its build's logs, oldest first (a deleted build's logs go with it). */
export function buildLogLines(event: BuildEvent): BuildLogLine[] {
  const line = (at: string, message: string, level: BuildLogLine['level'] = 'info'): BuildLogLine => ({ at, level, message });
  switch (event.type) {
    case 'BuildUploadRequested': {
      const d = event.data;
      const exe = d.executablePath === null ? '' : `; executable_path ${d.executablePath}`;
      return [line(d.at, `upload URL issued for version ${d.version} of "${d.name}", valid until ${d.expiresAt}${exe}`)];
    }
    case 'BuildImageRegistered': {
      const d = event.data;
      return [line(d.at, `${image(d.image)} registered as version ${d.version} of "${d.name}"; nothing to process: ready`)];
    }
    case 'BuildUploadReceived':
      return [line(event.data.at, `ZIP received (${event.data.sizeBytes} bytes); processing started`)];
    case 'BuildReady': {
      const d = event.data;
      return [...(d.log ?? []), line(d.at, `ready: executable ${d.executablePath}, ${d.sizeBytes} bytes unpacked`)];
    }
    case 'BuildFailed': {
      const d = event.data;
      return [...(d.log ?? []), line(d.at, `failed: ${d.error}`, 'error')];
    }
    case 'BuildDeleted':
      return [];
  }
}
