import type { Server, StartServerBody } from '@spawnpoint/client';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { print, table } from '../output';

const COLUMNS = ['instance_id', 'name', 'status', 'region', 'ports', 'age'];

function age(iso: string | null): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : s < 172800 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86400)}d`;
}

function row(s: Server): Record<string, unknown> {
  return { ...s, ports: s.network_ports.map((p) => `${p.protocol}:${p.host}:${p.external_port}`), age: age(s.created_at) };
}

function describe(s: Server): string {
  const ports = s.network_ports.map((p) => `  ${p.name} ${p.protocol} ${p.host}:${p.external_port} -> ${p.internal_port}`);
  return [`${s.instance_id}  ${s.name}`, `status ${s.status}, region ${s.region}, build ${s.version_tag}${s.version ? ` v${s.version}` : ''}, match ${s.match_id}`,
    ...(ports.length ? ['ports:', ...ports] : ['ports: none'])].join('\n');
}

function json(flag: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch { /* below */ }
  throw new UsageError(`${flag} must be a JSON object`);
}

function envVars(list: string[] | undefined): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  return Object.fromEntries(list.map((kv) => {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--env takes KEY=VALUE, got "${kv}"`);
    return [kv.slice(0, i), kv.slice(i + 1)];
  }));
}

const int = (flag: string, v: unknown): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new UsageError(`${flag} must be an integer`);
  return n;
};

export const serversStart: Command = {
  words: ['servers', 'start'],
  args: [],
  summary: 'Start a game server (prints it with its ports; --wait: once running)',
  options: {
    name: { type: 'string', short: 'n' }, region: { type: 'string', short: 'r' }, 'version-tag': { type: 'string' }, version: { type: 'string' },
    ttl: { type: 'string' }, 'custom-data': { type: 'string' }, env: { type: 'string', multiple: true }, 'match-id': { type: 'string' },
    'startup-args': { type: 'string' }, wait: { type: 'boolean', short: 'w' },
  },
  notes: ['--name and --region are required', '--env KEY=VALUE (repeatable)', '--custom-data \'{"map":"dust"}\''],
  async run(ctx, _args, v) {
    if (v.name === undefined || v.region === undefined) throw new UsageError('servers start needs --name and --region');
    const body: StartServerBody = {
      name: v.name as string, region: v.region as string, version_tag: v['version-tag'] as string | undefined, version: int('--version', v.version),
      ttl: int('--ttl', v.ttl), custom_data: json('--custom-data', v['custom-data'] as string | undefined), environment_variables: envVars(v.env as string[] | undefined),
      match_id: v['match-id'] as string | undefined, startup_args: v['startup-args'] as string | undefined,
    };
    for (const k of Object.keys(body) as (keyof StartServerBody)[]) if (body[k] === undefined) delete body[k];
    const sp = ctx.client();
    let server = await sp.servers.start(body);
    if (v.wait) server = await sp.servers.waitFor(server.instance_id, 'running');
    print(ctx.output, server, () => describe(server));
  },
};

export const serversList: Command = {
  words: ['servers', 'list'],
  args: [],
  summary: 'List servers, newest first: running ones (--launching: launching too, --pool: unclaimed pool servers too; --all: every page)',
  options: {
    status: { type: 'string' }, region: { type: 'string' }, launching: { type: 'boolean' }, pool: { type: 'boolean' },
    limit: { type: 'string' }, offset: { type: 'string' }, all: { type: 'boolean' },
  },
  async run(ctx, _args, v) {
    const query = {
      status: v.status as Server['status'] | undefined, region: v.region as string | undefined,
      ...(v.launching ? { include_launching: true } : {}), ...(v.pool ? { include_pool: true } : {}),
    };
    let servers: Server[];
    if (v.all) {
      servers = [];
      for await (const s of ctx.client().servers.listAll(query)) servers.push(s);
    } else {
      servers = (await ctx.client().servers.list({ ...query, limit: int('--limit', v.limit), offset: int('--offset', v.offset) })).servers;
    }
    print(ctx.output, servers, () => table(servers.map(row), COLUMNS));
  },
};

export const serversGet: Command = {
  words: ['servers', 'get'],
  args: ['<ID>'],
  summary: 'Show one server',
  options: {},
  async run(ctx, [id]) {
    const s = await ctx.client().servers.get(id);
    print(ctx.output, s, () => describe(s));
  },
};

export const serversStop: Command = {
  words: ['servers', 'stop'],
  args: ['<ID>'],
  summary: 'Stop a server',
  options: {},
  async run(ctx, [id]) {
    const s = await ctx.client().servers.stop(id);
    print(ctx.output, s, () => `${s.instance_id}: ${s.status}`);
  },
};

export const serversRestart: Command = {
  words: ['servers', 'restart'],
  args: ['<ID>'],
  summary: 'Restart a server on a new machine (same id, new ports; --wait: once running)',
  options: { wait: { type: 'boolean', short: 'w' } },
  async run(ctx, [id], v) {
    const sp = ctx.client();
    let s = await sp.servers.restart(id);
    if (v.wait) s = await sp.servers.waitFor(id, 'running');
    print(ctx.output, s, () => describe(s));
  },
};

export const serversLogs: Command = {
  words: ['servers', 'logs'],
  args: ['<ID>'],
  summary: "Print a server's log (-f: follow it until the server stops or Ctrl-C)",
  options: { follow: { type: 'boolean', short: 'f' }, since: { type: 'string' }, search: { type: 'string' }, limit: { type: 'string' } },
  notes: ['--since: ISO time or relative (-15m, -1h, -2d); default: the last 24 h (with -f: since the server was created)', '--json: one JSON line per log line'],
  async run(ctx, [id], v) {
    const sp = ctx.client();
    const line = (l: { timestamp: string; level: string; message: string }) =>
      ctx.output.out(ctx.output.json ? JSON.stringify(l) : `${l.timestamp} ${l.level.padEnd(5)} ${l.message}`);
    if (v.follow) {
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once('SIGINT', stop);
      try {
        for await (const l of sp.servers.followLogs(id, { start_time: v.since as string | undefined, signal: abort.signal })) {
          if (v.search && !l.message.toLowerCase().includes(String(v.search).toLowerCase())) continue;
          line(l);
        }
      } finally {
        process.removeListener('SIGINT', stop);
      }
      return;
    }
    let token: string | null = null;
    do {
      const page = await sp.servers.logs(id, { start_time: v.since as string | undefined, search: v.search as string | undefined, limit: int('--limit', v.limit) ?? 1000, ...(token ? { next_token: token } : {}) });
      page.logs.forEach(line);
      token = v.limit ? null : page.next_token;
    } while (token);
  },
};
