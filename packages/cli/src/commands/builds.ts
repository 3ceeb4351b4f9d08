import type { Build } from '@spawnpoint/client';
import { pushBuild } from '@spawnpoint/client/node';
import type { Command } from '../command';
import { print, progressBar, table } from '../output';

export const buildsPush: Command = {
  words: ['builds', 'push'],
  args: ['<DIR|ZIP>'],
  summary: 'Zip a directory (or take a .zip), upload it with a progress bar, and wait until the build is ready',
  options: { name: { type: 'string', short: 'n', default: 'default' }, executable: { type: 'string' }, 'no-wait': { type: 'boolean' }, timeout: { type: 'string', default: '300' } },
  notes: ['--name: the build name servers start from (version_tag), default "default"', '--executable: the path of the executable inside the build',
    '--no-wait: return once uploaded (status processing)', '--timeout: seconds to wait for ready (default 300)'],
  async run(ctx, [source], v) {
    const build = await pushBuild(ctx.client(), source, {
      name: v.name as string, executable_path: v.executable as string | undefined, wait: !v['no-wait'],
      timeoutMs: Number(v.timeout) * 1000, onProgress: progressBar(ctx.output, 'upload'),
    });
    print(ctx.output, build, () => `build ${build.build_id} ${build.name} v${build.version}: ${build.status}`);
  },
};

export const buildsList: Command = {
  words: ['builds', 'list'],
  args: [],
  summary: 'List builds, newest first (every page)',
  options: { name: { type: 'string', short: 'n' } },
  async run(ctx, _args, v) {
    const builds: Build[] = [];
    for await (const b of ctx.client().builds.listAll(v.name ? { name: v.name as string } : {})) builds.push(b);
    print(ctx.output, builds, () => table(builds, ['build_id', 'name', 'version', 'status', 'build_type']));
  },
};

export const buildsLogs: Command = {
  words: ['builds', 'logs'],
  args: ['<BUILD_ID>'],
  summary: 'What processing did with a build: checks, unpacking, the executable found, the reason of a failure',
  options: {},
  async run(ctx, [id]) {
    const { logs } = await ctx.client().builds.logs(id);
    print(ctx.output, logs, () => logs.map((l) => `${l.timestamp} ${l.level.padEnd(5)} ${l.message}`).join('\n'));
  },
};
