// Matchmaking in both modes (test/e2e/matchmaking.ts).
import { startDistributed, startStandalone } from '../support/processes';
import { describeMatchmaking } from './matchmaking';

describeMatchmaking('standalone', () => startStandalone({ portRange: '28000-28199' }));
describeMatchmaking('distributed', () => startDistributed('28200-28399'));
