// A stand-in OTLP/HTTP collector for benchmarks: a child process that takes every POST /v1/traces, counts
// it and throws it away (a real collector's work is not the platform's cost). GET /stats: {requests, bytes}.
'use strict';
const { spawn } = require('node:child_process');

const SINK = `
const http = require('node:http');
let requests = 0, bytes = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify({ requests, bytes }));
  req.on('data', (c) => { bytes += c.length; });
  req.on('end', () => { requests++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function startSpanSink() {
  const child = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('span sink did not start within 10 s')), 10_000);
    child.stdout.on('data', (d) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    });
    child.once('exit', (code) => reject(new Error(`span sink exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stats: async () => (await fetch(`${url}/stats`)).json(),
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

module.exports = { startSpanSink };
