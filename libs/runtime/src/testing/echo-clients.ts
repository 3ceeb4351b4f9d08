import dgram from 'node:dgram';
import net from 'node:net';

/** Send one line over TCP and resolve with the first line that comes back. */
export function tcpRoundTrip(host: string, port: number, line: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TCP reply from ${host}:${port}`)));
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (data: string) => {
      received += data;
      const end = received.indexOf('\n');
      if (end === -1) return;
      socket.end();
      resolve(received.slice(0, end));
    });
    socket.on('error', reject);
  });
}

/** Whether a TCP connection to host:port is refused (nothing listens there). */
export function tcpRefused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** Send one datagram and resolve with the reply, or null when none arrives within timeoutMs. */
export function udpRoundTrip(host: string, port: number, payload: string, timeoutMs = 5000): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    const done = (reply: string | null) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('message', (message) => done(message.toString('utf8')));
    // An ICMP "port unreachable" surfaces as an error on some systems: it also means no reply.
    socket.on('error', () => done(null));
    socket.send(payload, port, host);
  });
}
