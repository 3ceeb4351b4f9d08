import { startDistributed, startStandalone } from '../support/processes';
import { describeGameApi } from './game-api';

// Short, for the 'never ready' case; long enough that a loaded CI machine starts a game within it.
const STARTUP_TIMEOUT_MS = 8000;
const env = { SPAWNPOINT_STARTUP_TIMEOUT_MS: String(STARTUP_TIMEOUT_MS) };
describeGameApi('standalone', () => startStandalone({ portRange: '29000-29199', env }), STARTUP_TIMEOUT_MS);
describeGameApi('distributed', () => startDistributed('29200-29399', env), STARTUP_TIMEOUT_MS);
