import dgram from 'node:dgram';
import net from 'node:net';
import type { Protocol } from '../runtime';

/** Whether `port` can be bound on all interfaces right now, found by binding it briefly. */
export function isPortFree(port: number, protocol: Protocol): Promise<boolean> {
  return new Promise((resolve) => {
    if (protocol === 'tcp') {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
    } else {
      const socket = dgram.createSocket('udp4');
      socket.once('error', () => {
        socket.close();
        resolve(false);
      });
      socket.bind({ port, address: '0.0.0.0', exclusive: true }, () => socket.close(() => resolve(true)));
    }
  });
}
