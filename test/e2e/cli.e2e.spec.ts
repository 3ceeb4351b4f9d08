// The `spawnpoint` CLI over the README walkthrough on the standalone platform: login (0600 config), builds
// push, servers start, logs -f showing the game's own output until the server stops, stop; --json shapes on
// stdout; the documented exit code for each kind of failure; --help on every command.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, Platform, startStandalone } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'packages', 'cli', 'dist', 'main.js');
const GAME = path.join(ROOT, 'examples', 'game-server');

describe('the spawnpoint CLI (standalone)', () => {
  jest.setTimeout(120_000);
  let p: Platform;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 90_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
  };

  beforeAll(async () => {
    p = await startStandalone({ portRange: '25000-25199' });
    home = mkdtempSync(path.join(os.tmpdir(), 'sp-cli-'));
    env = { PATH: process.env.PATH, HOME: home, SPAWNPOINT_CONFIG: path.join(home, 'cfg', 'config.json') };
  });
  afterAll(async () => {
    await p?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('logs in: checks the key first, keeps it in a 0600 file; a wrong key is exit 3 and changes nothing', () => {
    const bad = cli(['login', '--url', p.baseUrl, '--key', 'pf_wrong']);
    expect(bad.code).toBe(3);
    expect(() => statSync(env.SPAWNPOINT_CONFIG!)).toThrow();
    const ok = cli(['login', '--url', p.baseUrl, '--key', p.serverKey, '--json']);
    expect(ok.code).toBe(0);
    expect(ok.json()).toEqual({ url: p.baseUrl, config: env.SPAWNPOINT_CONFIG, key_kind: 'server' });
    expect(statSync(env.SPAWNPOINT_CONFIG!).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(env.SPAWNPOINT_CONFIG!, 'utf8'))).toMatchObject({ url: p.baseUrl, key: p.serverKey });
  });

  it('walks the README: push a build, start a server, follow its log, stop it', async () => {
    const push = cli(['builds', 'push', GAME, '--name', 'default', '--json']);
    expect(push.code).toBe(0);
    expect(push.json()).toMatchObject({ name: 'default', status: 'ready', build_type: 'zip' });
    expect(push.stderr).toMatch(/upload: .* sent/);

    const start = cli(['servers', 'start', '--name', 'cli match', '--region', 'us-east', '--custom-data', '{"map":"dust"}', '--wait', '--json']);
    expect(start.code).toBe(0);
    const server = start.json();
    expect(server).toMatchObject({ name: 'cli match', status: 'running', region: 'us-east', custom_data: { map: 'dust' } });
    expect(server.network_ports.length).toBeGreaterThan(0);

    expect(cli(['servers', 'list', '--json']).json().map((s: { instance_id: string }) => s.instance_id)).toContain(server.instance_id);
    const human = cli(['servers', 'list']);
    expect(human.stdout).toMatch(/^INSTANCE_ID\s+NAME\s+STATUS\s+REGION\s+PORTS\s+AGE/);
    expect(human.stdout).toContain(server.instance_id);
    expect(cli(['servers', 'get', server.instance_id, '--json']).json()).toMatchObject({ instance_id: server.instance_id, status: 'running' });

    // logs -f shows the game's own output and ends by itself once the server has stopped.
    const follow: ChildProcess = spawn(process.execPath, [CLI, 'servers', 'logs', server.instance_id, '-f'], { env });
    let followed = '';
    follow.stdout!.on('data', (d) => (followed += String(d)));
    follow.stderr!.on('data', (d) => (followed += String(d)));
    const ended = new Promise<number | null>((resolve) => follow.once('exit', resolve));
    const deadline = Date.now() + 30_000;
    while (!/listening udp/.test(followed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(followed).toMatch(/listening udp/);

    const stop = cli(['servers', 'stop', server.instance_id, '--json']);
    expect(stop.code).toBe(0);
    expect(stop.json()).toMatchObject({ status: 'stopped', network_ports: [] });
    expect(await ended).toBe(0);
    expect(cli(['servers', 'logs', server.instance_id, '--json']).stdout.trim().split('\n').map((l) => JSON.parse(l).instance_id)).toContain(server.instance_id);

    // A second stop is no error (DELETE is idempotent): exit 0, the server as it stopped.
    const again = cli(['servers', 'stop', server.instance_id, '--json']);
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ status: 'stopped', network_ports: [], stopped_at: stop.json().stopped_at });
  });

  it('answers each kind of failure with its exit code', () => {
    expect(cli(['servers', 'get', '00000000-0000-4000-8000-000000000000']).code).toBe(4);
    const invalid = cli(['servers', 'start', '--name', '', '--region', 'us-east']);
    expect(invalid.code).toBe(6);
    expect(invalid.stderr).toMatch(/body\.name/);
    expect(cli(['servers', 'start', '--name', 'x']).code).toBe(2);
    expect(cli(['servers', 'start', '--name', 'x', '--region', 'us-east', '--bogus']).code).toBe(2);
    expect(cli(['servers', 'get']).code).toBe(2);
    expect(cli(['servers']).code).toBe(2);
    expect(cli(['nonsense']).code).toBe(2);
    expect(cli(['servers', 'list'], { SPAWNPOINT_CONFIG: path.join(home, 'none.json') }).code).toBe(3);
    expect(cli(['servers', 'list'], { SPAWNPOINT_URL: 'http://127.0.0.1:9/api' }).code).toBe(8);
    expect(cli(['projects', 'create', '--name', 'x']).code).toBe(3);
  });

  it('shows pools, lobbies, and runs the operator commands with the admin token', () => {
    const pools = cli(['pools', 'status', '--json']);
    expect(pools.code).toBe(0);
    expect(pools.json()).toEqual({ enabled: expect.any(Boolean), regions: expect.any(Array) });
    const lobbies = cli(['lobbies', 'list', 'default', '--json']);
    expect(lobbies.code).toBe(0);
    expect(Array.isArray(lobbies.json())).toBe(true);

    const admin = { SPAWNPOINT_ADMIN_TOKEN: ADMIN_TOKEN };
    const created = cli(['projects', 'create', '--name', 'cli-made', '--json'], admin);
    expect(created.code).toBe(0);
    const project = created.json();
    expect(project).toMatchObject({ project_id: expect.any(String), server_key: expect.stringMatching(/^pf_/), client_key: expect.stringMatching(/^pfclient_/) });
    const rotated = cli(['keys', 'rotate', project.project_id, '--json'], admin);
    expect(rotated.code).toBe(0);
    expect(rotated.json().server_key).not.toBe(project.server_key);
    expect(cli(['servers', 'list'], { SPAWNPOINT_KEY: project.server_key }).code).toBe(3);
    expect(cli(['servers', 'list'], { SPAWNPOINT_KEY: rotated.json().server_key }).code).toBe(0);
  });

  it('has --help for every command, exit 0', () => {
    const overview = cli(['--help']);
    expect(overview.code).toBe(0);
    const commands = [...overview.stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?)(?: <[A-Z_|]+>)?\s{2,}/gm)].map((m) => m[1]);
    expect(commands).toEqual(expect.arrayContaining(['login', 'builds push', 'servers start', 'servers logs', 'pools status', 'projects create', 'keys rotate']));
    for (const c of commands) {
      const h = cli([...c.split(' '), '--help']);
      expect({ c, code: h.code }).toEqual({ c, code: 0 });
      expect(h.stdout).toContain(`spawnpoint ${c}`);
    }
  });
});
