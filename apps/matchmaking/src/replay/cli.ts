// npm run matchmaking:replay -- --project P --config C --mode M --from T1 --to T2 [--rules file.json] [--tick-ms 250]
// Re-runs a recorded queue period from the event store (DATABASE_URL, or EVENTSTORE_URL) under the mode as
// it is configured now, or as `--rules` proposes it (a Mode object as in lobby_configs[].matchmaking.modes),
// and prints time to match, rating spread, team imbalance and unmatched searches beside what happened.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fold, projectDecider, projectStream, replayQueue, ReplayResult, resolveLobbyConfig, resolveMode } from '@spawnpoint/domain';
import type { EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { chooseEventStore, openEventStore } from '@spawnpoint/platform';

const USAGE = 'usage: npm run matchmaking:replay -- --project P --config C --mode M --from ISO --to ISO [--rules mode.json] [--tick-ms 250]';
const PAGE = 5_000;

/** Every lobby and match event of the store, in order (one page at a time). */
async function recorded(store: EventStore): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let from = 0n;
  for (;;) {
    const page = await store.readAll({ fromPosition: from, categories: ['lobby', 'match'], limit: PAGE });
    out.push(...page);
    if (page.length < PAGE) return out;
    from = page[page.length - 1].position;
  }
}

export function table(r: ReplayResult): string {
  const rows: [string, (f: ReplayResult['actual']) => string][] = [
    ['searches', (f) => String(f.searches)],
    ['matched', (f) => String(f.matched)],
    ['unmatched', (f) => String(f.unmatched)],
    ['matches', (f) => String(f.matches)],
    ['time to match p50 (s)', (f) => String(f.timeToMatch.p50)],
    ['time to match p90 (s)', (f) => String(f.timeToMatch.p90)],
    ['time to match p99 (s)', (f) => String(f.timeToMatch.p99)],
    ['mean rating spread', (f) => String(f.meanRatingSpread)],
    ['mean team imbalance', (f) => String(f.meanTeamImbalance)],
  ];
  const lines = [['', 'recorded', 'replayed'], ...rows.map(([name, get]) => [name, get(r.actual), get(r.simulated)])];
  const widths = [0, 1, 2].map((i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: {
    project: { type: 'string' }, config: { type: 'string' }, mode: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' },
    rules: { type: 'string' }, 'tick-ms': { type: 'string' }, json: { type: 'boolean' },
  } });
  const { project, config, mode: modeName, from, to } = values;
  if (!project || !config || !modeName || !from || !to || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) {
    console.error(USAGE);
    return 2;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl && !process.env.EVENTSTORE_URL) {
    console.error('set DATABASE_URL (or EVENTSTORE_URL) to the event store the platform records into');
    return 2;
  }
  const opened = await openEventStore(chooseEventStore({ databaseUrl: databaseUrl ?? '', eventStoreUrl: process.env.EVENTSTORE_URL ?? '' }));
  try {
    let mode;
    if (values.rules) {
      mode = resolveMode(modeName, JSON.parse(readFileSync(values.rules, 'utf8')));
    } else {
      const { events } = await opened.store.readStream(projectStream(project));
      const state = fold(projectDecider, events.map((e) => ({ type: e.type, data: e.data })) as never);
      if (state.status === 'none') {
        console.error(`no project ${project} in this event store`);
        return 2;
      }
      mode = resolveLobbyConfig(state.settings.lobby_configs, config).modes[modeName];
      if (!mode) {
        console.error(`project ${project}: lobby config ${config} has no mode ${modeName} (give one with --rules)`);
        return 2;
      }
    }
    const events = (await recorded(opened.store)).map((e) => ({ type: e.type, data: e.data as { at: string } }));
    const result = replayQueue({ projectId: project, config }, modeName, mode, events, { from, to }, Number(values['tick-ms'] ?? 250));
    console.log(values.json ? JSON.stringify(result) : table(result));
    return 0;
  } finally {
    await opened.close();
  }
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
