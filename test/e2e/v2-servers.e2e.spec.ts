import { startDistributed, startStandalone } from '../support/processes';
import { describeV2Servers } from './v2-servers';

describeV2Servers('standalone', () => startStandalone({ portRange: '31400-31599' }));
describeV2Servers('distributed', () => startDistributed('31600-31799'));
