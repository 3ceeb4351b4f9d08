import { Spawnpoint } from '@spawnpoint/client';
import type { Command } from '../command';
import { configPath, readConfig, writeConfig } from '../config';
import { UsageError } from '../exit-codes';
import { print } from '../output';

export const login: Command = {
  words: ['login'],
  args: [],
  summary: 'Store the API base URL and a project key (checked first) in the config file (mode 0600)',
  options: {
    url: { type: 'string', short: 'u' },
    key: { type: 'string', short: 'k' },
    'admin-token': { type: 'string' },
  },
  notes: ['--url: the API base, e.g. http://127.0.0.1:8080/api', '--key: the server key (pf_…) or a client key (pfclient_…)',
    '--admin-token: the operator token (SPAWNPOINT_ADMIN_TOKEN), for projects create and keys rotate', `config file: ${configPath()} (or $SPAWNPOINT_CONFIG)`],
  async run(ctx, _args, v) {
    const saved = readConfig(ctx.env);
    const url = (v.url as string | undefined) ?? saved.url;
    const key = (v.key as string | undefined) ?? saved.key;
    if (!url || !key) throw new UsageError('login needs --url and --key');
    // The key is tried before it is kept: a typo fails here (exit 3), not at the next command.
    await new Spawnpoint({ baseUrl: url, apiKey: key }).projects.getSettings();
    const file = writeConfig({ url, key, adminToken: (v['admin-token'] as string | undefined) ?? saved.adminToken }, ctx.env);
    print(ctx.output, { url, config: file, key_kind: key.startsWith('pfclient_') ? 'client' : 'server' }, () => `Logged in to ${url}; saved in ${file}`);
  },
};
