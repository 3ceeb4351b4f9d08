// `spawnpoint login` stores the base URL, key and (optionally) the admin token in one file readable by its
// owner only (0600): $SPAWNPOINT_CONFIG, else $XDG_CONFIG_HOME/spawnpoint/config.json, else ~/.config/….
// SPAWNPOINT_URL / SPAWNPOINT_KEY / SPAWNPOINT_ADMIN_TOKEN override it (CI jobs need no file).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CliConfig { url?: string; key?: string; adminToken?: string }

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SPAWNPOINT_CONFIG) return env.SPAWNPOINT_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'spawnpoint', 'config.json');
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const file = configPath(env);
  const saved: CliConfig = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  return {
    url: env.SPAWNPOINT_URL || saved.url,
    key: env.SPAWNPOINT_KEY || saved.key,
    adminToken: env.SPAWNPOINT_ADMIN_TOKEN || saved.adminToken,
  };
}

export function writeConfig(config: CliConfig, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  // An existing file keeps its mode on write: make sure it is 0600 whatever it was.
  chmodSync(file, 0o600);
  return file;
}
