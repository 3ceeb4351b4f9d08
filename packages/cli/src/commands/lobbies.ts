import type { Command } from '../command';
import { print, table } from '../output';

export const lobbiesList: Command = {
  words: ['lobbies', 'list'],
  args: ['<CONFIG>'],
  summary: 'List the public lobbies of a lobby configuration',
  options: { region: { type: 'string' }, status: { type: 'string' } },
  async run(ctx, [config], v) {
    const lobbies = [];
    for await (const l of ctx.client().lobbies.browseAll(config, { region: v.region as string | undefined, status: v.status as string | undefined, limit: 100 })) lobbies.push(l);
    const rows = lobbies.map((l) => ({ ...l, players: `${l.currentPlayers}/${l.maxPlayers}` }));
    print(ctx.output, lobbies, () => table(rows, ['id', 'name', 'code', 'status', 'region', 'host', 'players']));
  },
};
