// Every entry point's first step: the process's logger, named for its app (docs/operations.md "Logs").
import { configureLogging } from '@spawnpoint/logging';
import { platformVersion } from '../metrics/registry';

/** Throws on a bad LOG_LEVEL / LOG_FORMAT after setting up a working logger, so the caller reports it as a failed start. */
export function setupLogging(service: string, env: NodeJS.ProcessEnv = process.env): void {
  configureLogging({ service, version: platformVersion() }, env);
}
