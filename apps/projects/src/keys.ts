import { randomBase62 } from '@spawnpoint/platform';

export const newServerKey = () => `pf_${randomBase62(32)}`;
export const newClientKey = () => `pfclient_${randomBase62(32)}`;
