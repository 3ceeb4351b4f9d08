// SIGTERM and SIGINT end a Spawnpoint process in order, once: `close` runs (HTTP, services, relays, then the
// database: see docs/operations.md), then the process exits 0. A failure of the close is reported in one
// line and exits 1; a second signal while closing is ignored, and a close that hangs is cut off.
import { logger } from '@spawnpoint/logging';

const log = logger('lifecycle');
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const CLOSE_TIMEOUT_MS = 30_000;

export function exitOnShutdownSignals(name: string, close: () => Promise<void>, timeoutMs = CLOSE_TIMEOUT_MS): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info(`spawnpoint ${name}: ${signal} received, shutting down`);
    const timer = setTimeout(() => {
      log.error(`spawnpoint ${name}: shutdown did not finish within ${timeoutMs} ms; exiting`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        log.info(`spawnpoint ${name}: stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, `spawnpoint ${name}: shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, shutdown);
}
