// Talks to a running sample game server the way a game client would.
import dgram from 'node:dgram';
import net from 'node:net';

export function tcpEcho(host: string, port: number, line: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let data = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('tcp echo timed out')); }, timeoutMs);
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (d) => {
      data += d.toString();
      if (data.includes('\n')) { clearTimeout(timer); socket.end(); resolve(data.trim()); }
    });
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

export function udpEcho(host: string, port: number, payload: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => { socket.close(); reject(new Error('udp echo timed out')); }, timeoutMs);
    socket.on('message', (msg) => { clearTimeout(timer); socket.close(); resolve(msg.toString()); });
    socket.send(payload, port, host, (err) => { if (err) { clearTimeout(timer); socket.close(); reject(err); } });
  });
}
