import { startDistributed, startStandalone } from '../support/processes';
import { describeServerLifecycle, STARTUP_TIMEOUT_MS } from './server-lifecycle';

const env = { SPAWNPOINT_STARTUP_TIMEOUT_MS: String(STARTUP_TIMEOUT_MS) };
describeServerLifecycle('standalone', () => startStandalone({ portRange: '18200-18399', env }));
describeServerLifecycle('distributed', () => startDistributed('18400-18599', env));
