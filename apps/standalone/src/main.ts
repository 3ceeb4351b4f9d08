import { exitOnShutdownSignals, setupTracing } from '@spawnpoint/platform';
import { Standalone, startStandalone } from './standalone';

function main(): void {
  setupTracing('standalone');
  const started = startStandalone();
  // From the first moment: a signal during start-up waits for the start, then shuts down in order.
  exitOnShutdownSignals('standalone', async () => {
    const s = await started.catch(() => null);
    await s?.close();
  });
  started.then(announce, (err: unknown) => {
    // One clear line (the stack only when asked for): start-up failures are the operator's to fix.
    const message = err instanceof Error ? err.message : String(err);
    console.error(`spawnpoint standalone: could not start: ${message}`);
    if (process.env.SPAWNPOINT_DEBUG && err instanceof Error) console.error(err.stack);
    process.exit(1);
  });
}

function announce(s: Standalone): void {
  console.log(`
Spawnpoint is running (standalone).

  API:         ${s.url}/api        (reference: ${s.url}/api/docs)${s.legacyUrl ? `\n  Legacy lobby API: ${s.legacyUrl}` : ''}${s.opsPort !== null ? `\n  Health and metrics: port ${s.opsPort} (/livez, /readyz, /metrics)` : ''}
  Project:     ${s.project.projectId}
  Server key:  ${s.project.serverKey}
  Client key:  ${s.project.clientKey}

Try:  curl -H "api-key: ${s.project.serverKey}" ${s.url}/api/v3/servers
`);
}

main();
