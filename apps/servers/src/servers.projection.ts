// The servers read model, in plain SQL on a pg connection: every start, claim and stop of a pool passes
// through here, and a Prisma transaction costs several times the CPU (ADR-0005).
import { ServerEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, SqlTx } from '@spawnpoint/platform';

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** Named statements are parsed once per connection. */
const STARTED = `INSERT INTO servers (id, project_id, name, status, region, compute_size, version_tag, version, build_id, network_ports,
    startup_args, service_type, auto_restart, custom_data, ttl, is_pool_server, match_id, created_at, updated_at, readiness)
  VALUES ($1::uuid, $2, $3, 'launching', $4, $5, $6, $7, $8::uuid, $9::jsonb, $10, $11, $12, $13::jsonb, $14, $15, $16, $17, $17, $18)
  ON CONFLICT (id) DO NOTHING`;
const CRASHED = `UPDATE servers SET status = 'launching', game_status = NULL, updated_at = $2 WHERE id = $1::uuid`;
const GAME_STATUS = `UPDATE servers SET game_status = $2::jsonb, updated_at = $3 WHERE id = $1::uuid`;
const CUSTOM_DATA = `UPDATE servers SET custom_data = $2::jsonb, updated_at = $3 WHERE id = $1::uuid`;
const STOPPED = `UPDATE servers SET status = 'stopped', stopped_at = $2, stop_reason = $3, network_ports = '[]'::jsonb, updated_at = $2
  WHERE id = $1::uuid`;
// A claim ended by its lease on a resettable game: unclaimed again, under the pool's name and a new match id.
const RELEASED = `UPDATE servers SET name = $2, match_id = $3, custom_data = NULL, ttl = NULL, start_key = NULL, pool_claimed_at = NULL, updated_at = $4
  WHERE id = $1::uuid`;
// Overrides absent from the event keep their column: a flag per optional column says whether to set it.
const RESTARTED = `UPDATE servers SET status = 'launching', network_ports = $2::jsonb, build_id = $3::uuid, version = $4,
    started_at = NULL, stopped_at = NULL, stop_reason = NULL, game_status = NULL, updated_at = $5,
    name = CASE WHEN $6 THEN $7 ELSE name END,
    startup_args = CASE WHEN $8 THEN $9 ELSE startup_args END,
    version_tag = CASE WHEN $10 THEN $11 ELSE version_tag END,
    ttl = CASE WHEN $12 THEN $13::int ELSE ttl END,
    auto_restart = CASE WHEN $14 THEN $15::boolean ELSE auto_restart END,
    custom_data = CASE WHEN $16 THEN $17::jsonb ELSE custom_data END,
    match_id = CASE WHEN $18 THEN $19 ELSE match_id END
  WHERE id = $1::uuid`;

async function apply(recorded: RecordedEvent, sql: SqlTx): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as ServerEvent;
  switch (event.type) {
    case 'ServerStarted': {
      const d = event.data;
      await sql.query({ name: 'servers_started', text: STARTED }, [
        d.serverId, d.projectId, d.name, d.region, d.computeSize, d.versionTag, d.version, d.buildId, JSON.stringify(d.networkPorts),
        d.startupArgs, d.serviceType, d.autoRestart, json(d.customData), d.ttl, d.isPoolServer, d.matchId, new Date(d.at), d.readiness ?? 'ports',
      ]);
      return;
    }
    case 'ServerCrashed':
      await sql.query({ name: 'servers_crashed', text: CRASHED }, [event.data.serverId, new Date(event.data.at)]);
      return;
    case 'ServerRestarted': {
      const d = event.data;
      const set = (value: unknown, asJson = false) => [value !== undefined, value === undefined ? null : asJson ? json(value) : value];
      await sql.query({ name: 'servers_restarted', text: RESTARTED }, [
        d.serverId, JSON.stringify(d.networkPorts), d.buildId, d.version, new Date(d.at),
        ...set(d.name), ...set(d.startupArgs), ...set(d.versionTag), ...set(d.ttl), ...set(d.autoRestart), ...set(d.customData, true), ...set(d.matchId),
      ]);
      return;
    }
    case 'ServerCustomDataUpdated':
      await sql.query({ name: 'servers_custom_data', text: CUSTOM_DATA }, [event.data.serverId, json(event.data.customData), new Date(event.data.at)]);
      return;
    case 'ServerGameStatusReported': {
      const { serverId, at, ...reported } = event.data;
      await sql.query({ name: 'servers_game_status', text: GAME_STATUS }, [serverId, JSON.stringify({ ...reported, reportedAt: at }), new Date(at)]);
      return;
    }
    case 'ServerStopped':
      await sql.query({ name: 'servers_stopped', text: STOPPED }, [event.data.serverId, new Date(event.data.at), event.data.reason]);
      return;
    case 'ServerPoolReleased':
      await sql.query({ name: 'servers_released', text: RELEASED }, [event.data.serverId, event.data.name, event.data.matchId, new Date(event.data.at)]);
      return;
  }
}

// Claims and servers coming up (a pool refilling) arrive in runs: a run, or a single one, is one statement.
const CLAIMED_MANY = `UPDATE servers s SET name = c->>'name', custom_data = NULLIF(c->'customData', 'null'::jsonb), ttl = (c->>'ttl')::int, match_id = c->>'matchId', start_key = c->>'startKey',
    pool_claimed_at = (c->>'at')::timestamptz, updated_at = (c->>'at')::timestamptz
  FROM jsonb_array_elements($1::jsonb) AS c WHERE s.id = (c->>'serverId')::uuid`;
// started_at stays from the first run while a crashed game restarts on the same machine.
const RUNNING_MANY = `UPDATE servers s SET status = 'running', started_at = COALESCE(s.started_at, (r->>'at')::timestamptz), updated_at = (r->>'at')::timestamptz
  FROM jsonb_array_elements($1::jsonb) AS r WHERE s.id = (r->>'serverId')::uuid AND s.status = 'launching'`;
const RUNS: Partial<Record<ServerEvent['type'], { name: string; text: string }>> = {
  ServerPoolClaimed: { name: 'servers_claimed_many', text: CLAIMED_MANY },
  ServerRunning: { name: 'servers_running_many', text: RUNNING_MANY },
};

// What a client polls for (a cold start's running, a game that ended): committed at once, not after the batch interval.
const URGENT = new Set(['ServerRunning', 'ServerCrashed', 'ServerStopped']);

export const serversProjection: Projection = {
  name: 'servers',
  categories: ['server'],
  urgent: (event) => URGENT.has(event.type),
  async applySql(events, sql) {
    for (let i = 0; i < events.length; ) {
      const run = RUNS[events[i].type as ServerEvent['type']];
      if (!run) {
        await apply(events[i++], sql);
        continue;
      }
      // A server appears at most once in a run: its claim happens once, and a second ServerRunning needs a crash in between.
      let end = i + 1;
      while (end < events.length && events[end].type === events[i].type) end++;
      await sql.query(run, [JSON.stringify(events.slice(i, end).map((e) => e.data))]);
      i = end;
    }
  },
};
