import type { Command } from '../command';
import { print, table } from '../output';

export const lobbiesList: Command = {
  words: ['lobbies', 'list'],
  args: ['<CONFIG>'],
  summary: 'List the public lobbies of a lobby configuration',
  options: { region: { type: 'string' }, status: { type: 'string' }, player: { type: 'string', default: 'spawnpoint-cli' } },
  notes: ['--player: the x-player-id the listing is made as (default spawnpoint-cli; needed when players must sign in)'],
  async run(ctx, [config], v) {
    const page = await ctx.client().lobbies.asPlayer(v.player as string).browse(config, { region: v.region as string | undefined, status: v.status as string | undefined } as never);
    const rows = page.lobbies.map((l) => ({ ...l, players: `${l.currentPlayers}/${l.maxPlayers}` }));
    print(ctx.output, page.lobbies, () => table(rows, ['id', 'name', 'status', 'region', 'host', 'players']));
  },
};
