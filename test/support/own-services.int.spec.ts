// The outage tests' private services stop and start again on the same address, data kept.
import { Client } from 'pg';
import { connect } from 'nats';
import { startOwnNats, startOwnPostgres } from './own-services';

jest.setTimeout(120_000);

async function query(url: string, sql: string): Promise<unknown[]> {
  const c = new Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

it('a private PostgreSQL stops (fast and immediate) and starts again with its data', async () => {
  const pg = await startOwnPostgres();
  try {
    await query(pg.url, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    await pg.stop('immediate');
    await expect(query(pg.url, 'SELECT 1')).rejects.toThrow();
    await pg.start();
    expect(await query(pg.url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
    await pg.stop('fast');
    await expect(query(pg.url, 'SELECT 1')).rejects.toThrow();
    await pg.start();
    expect(await query(pg.url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
  } finally {
    await pg.remove();
  }
});

it('a private NATS restarts on the same port', async () => {
  const nats = await startOwnNats();
  try {
    const nc = await connect({ servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    await nats.stop();
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toBeDefined();
    await nats.start();
    // The first connection is back: a request on it is answered.
    const sub = nc.subscribe('own.echo', { callback: (_e, m) => m.respond(m.data) });
    for (let i = 0; i < 100 && nc.isClosed() === false; i++) {
      const reply = await nc.request('own.echo', new TextEncoder().encode('hi'), { timeout: 200 }).catch(() => null);
      if (reply) break;
    }
    expect(new TextDecoder().decode((await nc.request('own.echo', new TextEncoder().encode('hi'), { timeout: 2000 })).data)).toBe('hi');
    sub.unsubscribe();
    await nc.close();
  } finally {
    await nats.remove();
  }
});
