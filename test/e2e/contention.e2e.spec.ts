import { startDistributed, startStandalone } from '../support/processes';
import { describeContention } from './contention';

describeContention('standalone', () => startStandalone({ portRange: '21000-21399' }));
describeContention('distributed, two gateways', () => startDistributed('21400-21799', {}, { gateways: 2 }));
