// `spawnpoint`: see `spawnpoint --help` and docs/cli.md.
import { runCli } from './cli';

runCli(process.argv.slice(2), process.env, (s) => process.stdout.write(s + '\n'), (s) => process.stderr.write(s + '\n')).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`spawnpoint: ${err instanceof Error ? err.stack : String(err)}\n`); process.exitCode = 1; },
);
