// @spawnpoint/client in both modes (test/e2e/client-sdk.ts). The gateway restart: standalone stops and starts
// again on the same port and data dir; distributed kills the gateway (kill -9) and starts it again.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, Platform, startDistributed, startStandalone } from '../support/processes';
import { describeClientSdk } from './client-sdk';

/** A standalone platform that can be restarted in place; stop() ends whichever run is current. */
async function restartableStandalone(): Promise<Platform & { restart(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-sdk-'));
  const port = await freePort();
  const options = { dataDir, port, portRange: '24600-24799' };
  let current = await startStandalone(options);
  return {
    ...current,
    async restart() {
      await current.stop();
      current = await startStandalone(options);
    },
    async stop() {
      await current.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeClientSdk('standalone', restartableStandalone, (p) => (p as Awaited<ReturnType<typeof restartableStandalone>>).restart());
describeClientSdk('distributed', () => startDistributed('24800-24999'), async (p) => {
  await p.kill('gateway', 'SIGKILL');
  await p.relaunch('gateway');
});
