// Runs a bench and reports what PostgreSQL did in one of its windows: the statements (pg_stat_statements:
// calls, total execution time, rows; per unit of work) and the CPU of every postgres process (from /proc),
// between the bench's `# <phase> from monotonic` and `# <phase> until monotonic` lines.
// Needs pg_stat_statements loaded by the server (shared_preload_libraries = 'pg_stat_statements', a restart;
// planning time is counted too with pg_stat_statements.track_planning = on)
// and the bench's database on it (DATABASE_URL; matchmaking-http.js makes its own, sp_bench_mm_<pid>).
// Usage: node bench/lib/pg-window.js [bench.js] (PG_WINDOW=paced, PG_WINDOW_UNITS=2000: the work items in the
// window, e.g. lobbies; PG_WINDOW_DB=sp_bench_mm_%: the databases counted; PG_WINDOW_TOP=30; BENCH_* pass on)
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');
const { adminDatabaseUrl, postgresCpu } = require('./standalone');

const ADMIN_URL = adminDatabaseUrl();
const WINDOW = process.env.PG_WINDOW ?? 'paced';
const UNITS = Number(process.env.PG_WINDOW_UNITS ?? Number(process.env.BENCH_RATE ?? 200) * Number(process.env.BENCH_PACED_S ?? 10));
const DB_LIKE = process.env.PG_WINDOW_DB ?? 'sp_bench_mm_%';
const TOP = Number(process.env.PG_WINDOW_TOP ?? 30);

async function main() {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const bench = process.argv[2] ?? path.join(__dirname, '..', 'matchmaking-http.js');
  const child = spawn(process.execPath, [bench], { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let buffered = '';
  let started = null;
  const lines = [];
  child.stdout.on('data', (d) => {
    process.stdout.write(d);
    buffered += d;
    let i;
    while ((i = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
    }
    void drain();
  });
  let draining = Promise.resolve();
  const drain = () => (draining = draining.then(async () => {
    while (lines.length) {
      const line = lines.shift();
      if (line.startsWith(`# ${WINDOW} from monotonic`)) {
        await admin.query('SELECT pg_stat_statements_reset()');
        started = { cpu: postgresCpu(), at: Date.now() };
      } else if (line.startsWith(`# ${WINDOW} until monotonic`) && started) {
        const cpu = postgresCpu() - started.cpu;
        const seconds = (Date.now() - started.at) / 1000;
        const where = `FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname LIKE $1`;
        const total = (await admin.query(`SELECT sum(calls)::int AS calls, sum(total_exec_time) AS ms, sum(total_plan_time) AS plan_ms ${where}`, [DB_LIKE])).rows[0];
        const { rows } = await admin.query(`SELECT calls, total_exec_time AS ms, total_plan_time AS plan_ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) AS q ${where}
          ORDER BY total_exec_time DESC LIMIT ${TOP}`, [DB_LIKE]);
        console.log(`pg.${WINDOW}.window_s ${seconds.toFixed(1)}`);
        console.log(`pg.${WINDOW}.postgres_cpu_ms_per_unit ${((cpu * 1000) / UNITS).toFixed(2)} (${cpu.toFixed(2)} s over ${UNITS} units)`);
        // Planning time is counted only with pg_stat_statements.track_planning = on (0 otherwise).
        console.log(`pg.${WINDOW}.statements_per_unit ${(total.calls / UNITS).toFixed(1)} exec_ms_per_unit ${(total.ms / UNITS).toFixed(2)} plan_ms_per_unit ${(total.plan_ms / UNITS).toFixed(2)}`);
        for (const r of rows) console.log(`# ${String(r.calls).padStart(7)} calls ${r.ms.toFixed(1).padStart(9)} ms ${r.plan_ms.toFixed(1).padStart(8)} ms plan ${String(r.rows).padStart(7)} rows  ${r.q}`);
      }
    }
  }));
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  await draining;
  await admin.end();
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
