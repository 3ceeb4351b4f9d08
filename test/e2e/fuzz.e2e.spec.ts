import { startDistributed, startStandalone } from '../support/processes';
import { describeFuzz } from './fuzz';

describeFuzz('standalone', () => startStandalone({ portRange: '26400-26599' }));
describeFuzz('distributed', () => startDistributed('26600-26799'));
