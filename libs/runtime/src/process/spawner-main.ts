// The spawner: a small Node process that starts game processes for the process runtime. fork() costs
// time in proportion to the parent's memory, and blocks its event loop while it runs (~10 ms from a
// platform of a few hundred MB); from this small process it is cheap, and the platform never blocks.
// Protocol (IPC, JSON): see spawner.ts.
import { spawn } from 'node:child_process';

type Request =
  | { op: 'spawn'; id: string; executable: string; args: string[]; cwd: string; env: Record<string, string> }
  | { op: 'destroy'; id: string };

const children = new Map<string, ReturnType<typeof spawn>>();
const send = (message: object) => process.send?.(message);

process.on('message', (m: Request) => {
  if (m.op === 'destroy') {
    const child = children.get(m.id);
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    return;
  }
  let child: ReturnType<typeof spawn>;
  try {
    // Own process group, so signals reach whatever the game spawns too.
    child = spawn(m.executable, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: 'pipe' });
  } catch (err) {
    send({ op: 'error', id: m.id, message: (err as Error).message });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (err) => send({ op: 'error', id: m.id, message: err.message }));
    return;
  }
  children.set(m.id, child);
  send({ op: 'spawned', id: m.id, pid: child.pid });
  // Kept open but unused: some servers read console commands and quit on end of input.
  child.stdin?.on('error', () => undefined);
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => send({ op: 'data', id: m.id, stream, chunk: chunk.toString('base64') }));
  }
  child.on('exit', (code, signal) => send({ op: 'exit', id: m.id, code, signal }));
  child.on('close', () => {
    children.delete(m.id);
    send({ op: 'close', id: m.id });
  });
});

// The platform went away: so does the spawner (games are separate process groups and stay as they were).
process.on('disconnect', () => process.exit(0));
