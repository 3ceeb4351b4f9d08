import { logger } from '@spawnpoint/logging';
import { exitOnShutdownSignals, failedStart, setupLogging, setupTracing } from '@spawnpoint/platform';
import { Standalone, startStandalone } from './standalone';

const log = logger('lifecycle');

function main(): void {
  try {
    setupLogging('standalone');
  } catch (err) {
    failedStart('standalone', err);
  }
  setupTracing('standalone');
  const started = startStandalone();
  // From the first moment: a signal during start-up waits for the start, then shuts down in order.
  exitOnShutdownSignals('standalone', async () => {
    const s = await started.catch(() => null);
    await s?.close();
  });
  // One clear line (the stack only when asked for): start-up failures are the operator's to fix.
  started.then(announce, (err: unknown) => failedStart('standalone', err));
}

/** The addresses and the default project's keys (also kept in the data dir's default-project.json). */
function announce(s: Standalone): void {
  log.info({
    api: `${s.url}/api`, reference: `${s.url}/api/docs`, legacy_api: s.legacyUrl ?? undefined, ops_port: s.opsPort ?? undefined,
    project_id: s.project.projectId, server_key: s.project.serverKey, client_key: s.project.clientKey,
  }, `Spawnpoint is running (standalone): API ${s.url}/api; try curl -H "api-key: ${s.project.serverKey}" ${s.url}/api/v3/servers`
    + `; console ${s.url}/console${s.opsPort !== null ? `; metrics http://127.0.0.1:${s.opsPort}/metrics` : ''}`);
}

main();
