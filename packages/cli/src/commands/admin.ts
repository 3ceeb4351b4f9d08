import type { Command } from '../command';
import { print } from '../output';

const isPlan = (p: unknown): p is 'free' | 'pro' => p === 'free' || p === 'pro';

export const projectsCreate: Command = {
  words: ['projects', 'create'],
  args: [],
  summary: 'Create a project (admin token); prints its id and both keys, shown only once',
  options: { name: { type: 'string', short: 'n' }, plan: { type: 'string' } },
  async run(ctx, _args, v) {
    if (v.plan !== undefined && !isPlan(v.plan)) throw new Error(`--plan is free or pro, not ${String(v.plan)}`);
    const created = await ctx.admin().admin.createProject({ name: (v.name as string) ?? 'default', ...(v.plan ? { plan: v.plan } : {}) });
    print(ctx.output, created, () => `project ${created.project_id}\nserver key: ${created.server_key}\nclient key: ${created.client_key}`);
  },
};

export const keysRotate: Command = {
  words: ['keys', 'rotate'],
  args: ['<PROJECT_ID>'],
  summary: "Replace a project's keys (admin token); the old keys stop working at once",
  options: {},
  async run(ctx, [projectId]) {
    const rotated = await ctx.admin().admin.rotateKeys(projectId);
    print(ctx.output, rotated, () => `project ${rotated.project_id}\nserver key: ${rotated.server_key}\nclient key: ${rotated.client_key}`);
  },
};
