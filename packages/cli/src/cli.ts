// The command line: finds the command by its words, parses its options (node:util parseArgs, strict), runs
// it, and turns every failure into a message on stderr and an exit code (exit-codes.ts).
import { parseArgs } from 'node:util';
import { Spawnpoint } from '@spawnpoint/client';
import type { Command, Context } from './command';
import { allCommands } from './commands';
import { readConfig } from './config';
import { EXIT, exitCodeFor, NotLoggedIn, UsageError } from './exit-codes';
import type { Output } from './output';

const COMMON = ['--json     print JSON on stdout (and nothing else there)', '-h, --help show help'];

function commandHelp(c: Command): string {
  const opts = Object.entries(c.options).map(([name, o]) => `  ${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` <${name}>` : ''}${o.multiple ? ' (repeatable)' : ''}`);
  return [`spawnpoint ${[...c.words, ...c.args].join(' ')}`, '', c.summary, '', 'Options:', ...opts, ...COMMON.map((l) => `  ${l}`),
    ...(c.notes?.length ? ['', ...c.notes] : [])].join('\n');
}

function overview(commands: Command[], prefix: string[] = []): string {
  const shown = commands.filter((c) => prefix.every((w, i) => c.words[i] === w));
  const width = Math.max(...shown.map((c) => [...c.words, ...c.args].join(' ').length));
  return ['Usage: spawnpoint <command> [options]', '', 'Commands:',
    ...shown.map((c) => `  ${[...c.words, ...c.args].join(' ').padEnd(width)}  ${c.summary}`),
    '', 'Global options:', ...COMMON.map((l) => `  ${l}`),
    '', 'Login: spawnpoint login --url <api base> --key <key>, or SPAWNPOINT_URL / SPAWNPOINT_KEY / SPAWNPOINT_ADMIN_TOKEN.',
    'Exit codes: 0 ok, 1 failed, 2 usage, 3 auth, 4 not found, 5 conflict, 6 invalid, 7 rate limited, 8 unavailable.'].join('\n');
}

export async function runCli(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void, err: (s: string) => void, commands: Command[] = allCommands): Promise<number> {
  const json = argv.includes('--json');
  const help = argv.includes('--help') || argv.includes('-h');
  const words = argv.filter((a) => !a.startsWith('-'));
  // The longest command whose words open the command line.
  const command = commands
    .filter((c) => c.words.every((w, i) => words[i] === w))
    .sort((a, b) => b.words.length - a.words.length)[0];
  const output: Output = { json, out, err };
  if (!command) {
    const known = commands.some((c) => c.words[0] === words[0]);
    if (help || words.length === 0) {
      out(overview(commands, known ? [words[0]] : []));
      return EXIT.ok;
    }
    err(`spawnpoint: ${known && words.length === 1 ? `${words[0]} needs a command` : `unknown command "${words.join(' ')}"`}\n\n${overview(commands, known ? [words[0]] : [])}`);
    return EXIT.usage;
  }
  if (help) {
    out(commandHelp(command));
    return EXIT.ok;
  }
  const config = readConfig(env);
  const ctx: Context = {
    output, env,
    client() {
      if (!config.url || !config.key) throw new NotLoggedIn('not logged in: run spawnpoint login --url <api base> --key <key> (or set SPAWNPOINT_URL and SPAWNPOINT_KEY)');
      return new Spawnpoint({ baseUrl: config.url, apiKey: config.key });
    },
    admin() {
      if (!config.url || !config.adminToken) throw new NotLoggedIn('needs the admin token: spawnpoint login --admin-token <token> (or SPAWNPOINT_ADMIN_TOKEN)');
      return new Spawnpoint({ baseUrl: config.url, adminToken: config.adminToken });
    },
  };
  try {
    const at = argv.indexOf(command.words[command.words.length - 1]);
    const parsed = parseArgs({ args: argv.slice(at + 1), options: { ...command.options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== command.args.length) {
      throw new UsageError(`${command.words.join(' ')} takes ${command.args.length ? command.args.join(' ') : 'no arguments'} (got ${parsed.positionals.length ? parsed.positionals.join(' ') : 'none'})`);
    }
    const code = await command.run(ctx, parsed.positionals, parsed.values as Record<string, string | boolean | string[] | undefined>);
    return code ?? EXIT.ok;
  } catch (e) {
    const code = e instanceof TypeError && /Unknown option|Option '/.test(e.message) ? EXIT.usage : exitCodeFor(e);
    const message = e instanceof Error ? e.message : String(e);
    const body = (e as { body?: unknown }).body;
    if (json) out(JSON.stringify({ error: message, exit_code: code, ...(body ? { body } : {}) }, null, 2));
    err(`spawnpoint: ${message}${code === EXIT.usage ? `\n\n${commandHelp(command)}` : ''}`);
    const issues = (e as { issues?: { loc: unknown[]; msg: string }[] }).issues;
    for (const i of issues ?? []) err(`  ${i.loc.join('.')}: ${i.msg}`);
    return code;
  }
}
