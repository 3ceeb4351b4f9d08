import { parseProcStat, parseVmRssBytes } from './proc-stat';

describe('parseProcStat', () => {
  it('reads the fields used for metrics and process groups', () => {
    const text = '5812 (bash) S 5785 5812 5812 0 -1 4194560 2104 29937 0 0 2 1 18 7 20 0 1 0 33372 5124096 944 18446744073709551615 0 0\n';
    expect(parseProcStat(text)).toEqual({
      pid: 5812, state: 'S', ppid: 5785, pgrp: 5812, utime: 2, stime: 1, cutime: 18, cstime: 7, starttime: 33372,
    });
  });

  it('copes with spaces and parentheses in the command name', () => {
    const text = '42 (my (game) srv) R 1 42 42 0 -1 0 0 0 0 0 150 30 0 0 20 0 3 0 100 0 0';
    expect(parseProcStat(text)).toMatchObject({ pid: 42, state: 'R', ppid: 1, pgrp: 42, utime: 150, stime: 30, starttime: 100 });
  });

  it('returns null for malformed text', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('42 (x) S 1 2')).toBeNull();
  });
});

describe('parseVmRssBytes', () => {
  it('reads VmRSS in bytes', () => {
    expect(parseVmRssBytes('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t   3900 kB\nThreads:\t7\n')).toBe(3900 * 1024);
  });

  it('is null without VmRSS (zombies, kernel threads)', () => {
    expect(parseVmRssBytes('Name:\tnode\nState:\tZ (zombie)\n')).toBeNull();
  });
});
