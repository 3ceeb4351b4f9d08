// A request in flight when the app closes: its answer goes out whole, and the close does not wait for the
// client to drop its keep-alive connection (it used to, for the 72 s keep-alive timeout).
import { Controller, Module, Put } from '@nestjs/common';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { captureLogs } from '../../../../libs/logging/src/testing';
import { createHttpApp } from '../http-app';

let release: () => void = () => undefined;
let arrived: () => void = () => undefined;

@Controller()
class SlowController {
  @Put('slow')
  async slow(): Promise<{ ok: true }> {
    await new Promise<void>((resolve) => {
      release = resolve;
      arrived();
    });
    return { ok: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

describe('closing the HTTP app', () => {
  it('answers the request in flight, then closes without waiting for the client to drop its keep-alive connection', async () => {
    const logs = captureLogs();
    const app = await createHttpApp(SlowModule, { shutdownHooks: false });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    try {
      const inHandler = new Promise<void>((resolve) => (arrived = resolve));
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ port, host: '127.0.0.1', method: 'PUT', path: '/slow', agent }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      await inHandler;

      const t0 = Date.now();
      const closed = app.close().then(() => Date.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
      release();
      expect(await answer).toEqual({ status: 200, body: JSON.stringify({ ok: true }) });
      // The agent keeps the socket for a minute; the close must not.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((r) => (timer = setTimeout(() => r('still open after 5 s'), 5_000)));
      expect(await Promise.race([closed, late])).toBeLessThan(5_000);
      clearTimeout(timer);
      expect(logs.records().find((r) => r.route === '/slow')).toMatchObject({ status: 200 });
    } finally {
      agent.destroy();
      logs.restore();
    }
  });
});
