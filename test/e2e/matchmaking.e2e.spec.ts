// Matchmaking in both modes (test/e2e/matchmaking.ts).
import { startDistributed, startStandalone } from '../support/processes';
import { describeMatchmaking } from './matchmaking';

// Queue figures every second (10 s by default), so that a test sees them.
const FIGURES = { SPAWNPOINT_LOBBY_QUEUE_STATS_MS: '1000' };
describeMatchmaking('standalone', () => startStandalone({ portRange: '28000-28199', env: FIGURES }));
describeMatchmaking('distributed', () => startDistributed('28200-28399', FIGURES));
