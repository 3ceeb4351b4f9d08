import { setupTracing } from '@spawnpoint/platform';
import { startStandalone } from './standalone';

async function main(): Promise<void> {
  setupTracing('standalone');
  const s = await startStandalone();
  console.log(`
Spawnpoint is running (standalone).

  API:         ${s.url}/api        (reference: ${s.url}/api/docs)${s.legacyUrl ? `\n  Legacy lobby API: ${s.legacyUrl}` : ''}
  Project:     ${s.project.projectId}
  Server key:  ${s.project.serverKey}
  Client key:  ${s.project.clientKey}

Try:  curl -H "api-key: ${s.project.serverKey}" ${s.url}/api/v3/servers
`);
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void s.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
