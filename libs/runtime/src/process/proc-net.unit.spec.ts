import { boundInodes, parseChildPids, parseProcNet, parseSocketLink } from './proc-net';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1B58 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5020 1 00000000011d8713 100 0 0 10 0
   1: 00000000:1B59 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5433 1 000000002190ffa0 100 0 0 10 0
   2: 0100007F:1B5A 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 6001 1 000000002190ffa0 20 4 30 10 -1
   3: 0100007F:1B5B 0100007F:1F90 06 00000000:00000000 03:00000F2A 00000000     0        0 0 3 0000000000000000
`;

const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1B5C 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7001 1 0000000000000000 100 0 0 10 0
`;

const UDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  120: 00000000:1B58 00000000:0000 07 00000000:00000000 00:00000000 00000000  1000        0 8001 2 0000000000000000 0
  121: 0100007F:E2A1 0100007F:1B58 01 00000000:00000000 00:00000000 00000000  1000        0 8002 2 0000000000000000 0
`;

describe('parseProcNet', () => {
  it('reads port, state and inode of each socket', () => {
    expect(parseProcNet(TCP)).toEqual([
      { localPort: 7000, state: '0A', inode: 5020 },
      { localPort: 7001, state: '0A', inode: 5433 },
      { localPort: 7002, state: '01', inode: 6001 },
      { localPort: 7003, state: '06', inode: 0 },
    ]);
  });

  it('reads IPv6 tables', () => {
    expect(parseProcNet(TCP6)).toEqual([{ localPort: 7004, state: '0A', inode: 7001 }]);
  });

  it('ignores the header and blank or short lines', () => {
    expect(parseProcNet('')).toEqual([]);
    expect(parseProcNet(`${TCP.split('\n')[0]}\n\n  garbage line\n`)).toEqual([]);
  });
});

describe('boundInodes', () => {
  it('counts only listening TCP sockets', () => {
    const sockets = parseProcNet(TCP);
    expect(boundInodes(sockets, 'tcp', 7000)).toEqual([5020]);
    expect(boundInodes(sockets, 'tcp', 7002)).toEqual([]); // established
    expect(boundInodes(sockets, 'tcp', 7003)).toEqual([]); // time-wait, no inode
    expect(boundInodes(sockets, 'tcp', 9999)).toEqual([]);
  });

  it('counts any UDP socket bound to the port', () => {
    const sockets = parseProcNet(UDP);
    expect(boundInodes(sockets, 'udp', 7000)).toEqual([8001]);
    expect(boundInodes(sockets, 'udp', 58017)).toEqual([8002]);
  });
});

describe('parseSocketLink', () => {
  it('reads socket inodes and ignores other files', () => {
    expect(parseSocketLink('socket:[5020]')).toBe(5020);
    expect(parseSocketLink('pipe:[5020]')).toBeNull();
    expect(parseSocketLink('/dev/null')).toBeNull();
    expect(parseSocketLink('anon_inode:[eventpoll]')).toBeNull();
  });
});

describe('parseChildPids', () => {
  it('reads a children file', () => {
    expect(parseChildPids('123 456 \n')).toEqual([123, 456]);
    expect(parseChildPids('')).toEqual([]);
  });
});
