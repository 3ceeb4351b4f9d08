// kill -9 trials: starts in flight when the process that runs the games dies, then a restart. What must
// hold (issue 11): no acknowledged start lost or doubled, no orphan game process, acknowledged servers
// still running and reachable, nothing stuck launching, the next start works.
import { client, eventually } from '../support/http';
import { tcpEcho } from '../support/game-client';
import { gameProcesses, orphansOf } from '../support/game-processes';
import { everyServer } from '../support/server-list';

type Api = ReturnType<typeof client>;

export interface StartsUnderFire {
  /** instance ids of the starts answered 201. */
  acked: string[];
  /** Starts answered otherwise or not at all (the connection died). */
  failed: number;
}

/**
 * `count` starts (named trial-<i>), `concurrency` at a time; once `killAfter` are acknowledged, `kill` runs
 * while the others are in flight. Starts after the kill are still sent (they fail or are refused).
 */
export async function startsUnderFire(api: Api, count: number, concurrency: number, killAfter: number, kill: () => Promise<void>): Promise<StartsUnderFire> {
  const acked: string[] = [];
  let failed = 0;
  let next = 0;
  let killing: Promise<void> | null = null;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await api.post('/v3/servers/start', { name: `trial-${i}`, region: 'eu-uk' }).catch(() => null);
      if (res?.status === 201) acked.push(res.body.instance_id);
      else failed++;
      if (acked.length >= killAfter && !killing) killing = kill();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await (killing ?? kill());
  return { acked, failed };
}

const allServers = (api: Api) => everyServer(api);

export interface TrialFigures { acked: number; recorded: number; running: number; lost: number; orphans: number }

/** After the restart: everything issue 11 asks of a kill -9, asserted; the figures returned for the report. */
export async function checkAfterRestart(api: Api, dataDir: string, fired: StartsUnderFire): Promise<TrialFigures> {
  // Nothing stuck: every server settles on running or stopped (launching ones that were adopted go on binding).
  const servers = await eventually(() => allServers(api), (list) => list.every((s) => s.status === 'running' || s.status === 'stopped'), 30_000, 'no server left launching');
  const trial = servers.filter((s) => /^trial-\d+$/.test(s.name));
  // Not doubled: one server per start request at most; not lost: every acknowledged one is there and running.
  const perName = new Map<string, number>();
  for (const s of trial) perName.set(s.name, (perName.get(s.name) ?? 0) + 1);
  expect([...perName.values()].filter((n) => n > 1)).toEqual([]);
  const byId = new Map(servers.map((s) => [s.instance_id, s]));
  expect(fired.acked.filter((id) => byId.get(id)?.status !== 'running')).toEqual([]);
  // Still reachable on their ports.
  for (const id of fired.acked) {
    const tcp = byId.get(id).network_ports.find((p: any) => p.protocol === 'tcp');
    const echo = await tcpEcho(tcp.host, tcp.external_port, `after ${id}`).catch(async (err: Error) => {
      const logs = (await api.get(`/v3/servers/${id}/logs?start_time=-1h`)).body;
      const now = (await api.get(`/v3/servers/${id}`)).body;
      throw new Error(`server ${id} on ${tcp.external_port}: ${err.message}; now ${JSON.stringify(now)}; processes ${JSON.stringify(gameProcesses(dataDir))}; logs ${JSON.stringify(logs)}`);
    });
    expect(echo).toBe(`echo: after ${id}`);
  }
  // No orphan: exactly one game process per running server, none for anything else.
  const active = new Set(servers.filter((s) => s.status === 'running').map((s) => s.instance_id));
  const processes = gameProcesses(dataDir);
  const orphans = orphansOf(processes, active);
  expect(orphans).toEqual([]);
  expect(new Set(processes.map((p) => p.instanceId))).toEqual(active);
  return {
    acked: fired.acked.length, recorded: trial.length, running: trial.filter((s) => s.status === 'running').length,
    lost: trial.filter((s) => s.status === 'stopped').length, orphans: orphans.length,
  };
}

/** The platform still starts servers after it all. */
export async function nextStartWorks(api: Api): Promise<void> {
  const s = await api.post('/v3/servers/start', { name: 'after-the-crash', region: 'eu-uk' });
  expect(s.status).toBe(201);
  const up = await eventually(() => api.get(`/v3/servers/${s.body.instance_id}`), (r) => r.body.status === 'running', 20_000, 'the next start running');
  const tcp = up.body.network_ports.find((p: any) => p.protocol === 'tcp');
  expect(await tcpEcho(tcp.host, tcp.external_port, 'next')).toBe('echo: next');
}

/** Output of a process that must have shut down cleanly: no stack trace, no EPIPE. */
export function expectNoStackTraces(output: string): void {
  expect(output).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  // The same inside a JSON log line (an error's stack, its newlines escaped).
  expect(output).not.toMatch(/\\n\s+at .+\(.+:\d+:\d+\)/);
  expect(output).not.toMatch(/EPIPE|Unhandled|uncaught/i);
}
