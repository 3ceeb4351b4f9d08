import type { AllocatedPort } from './runtime';

export interface GameEnvInput {
  instanceId: string;
  matchId: string;
  region: string;
  computeSize: string;
  versionTag: string;
  version: number | null;
  customData: object | null;
  ports: AllocatedPort[];
  projectEnv: Record<string, string>;
  requestEnv: Record<string, string>;
  /** The game API (ADR-0016): this machine's token and the gateway base the game calls with it. */
  serverToken?: string;
  apiUrl?: string;
}

/** `SPAWNPOINT_PORT_<NAME>`: the port name upper-cased, anything not alphanumeric replaced by `_`. */
export function portEnvName(name: string): string {
  return `SPAWNPOINT_PORT_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The environment a game server starts with. Project variables, then the request's over them;
 * the SPAWNPOINT_* contract goes on top so user variables can never fake it.
 */
export function buildGameEnv(input: GameEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    ...input.projectEnv,
    ...input.requestEnv,
    SPAWNPOINT_INSTANCE_ID: input.instanceId,
    SPAWNPOINT_MATCH_ID: input.matchId,
    SPAWNPOINT_REGION: input.region,
    SPAWNPOINT_COMPUTE_SIZE: input.computeSize,
    SPAWNPOINT_VERSION_TAG: input.versionTag,
    SPAWNPOINT_VERSION: input.version === null ? '' : String(input.version),
    SPAWNPOINT_CUSTOM_DATA: JSON.stringify(input.customData),
  };
  if (input.serverToken !== undefined) {
    env.SPAWNPOINT_SERVER_ID = input.instanceId;
    env.SPAWNPOINT_SERVER_TOKEN = input.serverToken;
    if (input.apiUrl !== undefined) env.SPAWNPOINT_API_URL = input.apiUrl;
  }
  for (const port of input.ports) env[portEnvName(port.name)] = String(port.bindPort);
  // Our extension: the per-port variables do not say which protocol each port is.
  env.SPAWNPOINT_PORTS = JSON.stringify(
    input.ports.map((port) => ({ name: port.name, port: port.bindPort, protocol: port.protocol })),
  );
  return env;
}
