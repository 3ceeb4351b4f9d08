import { startDistributed, startStandalone } from '../support/processes';
import { describePools } from './pools';

describePools('standalone', () => startStandalone({ portRange: '18600-18799' }));
describePools('distributed', () => startDistributed('18800-18999'));
