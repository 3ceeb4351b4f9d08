import { startDistributed, startStandalone } from '../support/processes';
import { DEMAND_ENV, describePoolDemand } from './pool-demand';

describePoolDemand('standalone', () => startStandalone({ portRange: '32000-32099', env: DEMAND_ENV }));
describePoolDemand('distributed', () => startDistributed('32100-32199', DEMAND_ENV));
