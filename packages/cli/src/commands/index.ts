// Every command, in the order --help lists them.
import type { Command } from '../command';
import { keysRotate, projectsCreate } from './admin';
import { buildsList, buildsLogs, buildsPush } from './builds';
import { lobbiesList } from './lobbies';
import { login } from './login';
import { poolsStatus } from './pools';
import { serversGet, serversList, serversLogs, serversRestart, serversStart, serversStop } from './servers';

export const allCommands: Command[] = [
  login, buildsPush, buildsList, buildsLogs, serversStart, serversList, serversGet, serversLogs, serversStop, serversRestart,
  lobbiesList, poolsStatus, projectsCreate, keysRotate,
];
