import { classifyLogLevel } from './log-level';

describe('classifyLogLevel', () => {
  it.each([
    ['ERROR sample error line', 'error'],
    ['[ERROR] boom', 'error'],
    ['err: disk full', 'error'],
    ['2024-05-01T10:00:00.123Z FATAL out of memory', 'error'],
    ['[critical] lost connection to master', 'error'],
    ['WARN sample warning: no players yet', 'warn'],
    ['Warning: tick took 80ms', 'warn'],
    ['12:00:01 [main/WARN]: Can\'t keep up!', 'warn'],
    ['LOG_WARNING low memory', 'warn'],
    ['INFO listening udp 7001 tcp 7000', 'info'],
    ['debug: spawned bot', 'info'],
    ['[TRACE] packet 42', 'info'],
  ])('%s → %s (on stdout)', (line, level) => {
    expect(classifyLogLevel(line, 'stdout')).toBe(level);
  });

  it('an explicit level wins over the stream', () => {
    expect(classifyLogLevel('INFO progress on stderr', 'stderr')).toBe('info');
    expect(classifyLogLevel('[WARN] via stderr', 'stderr')).toBe('warn');
  });

  it('the first level word wins', () => {
    expect(classifyLogLevel('INFO: error count 0', 'stdout')).toBe('info');
  });

  it('falls back to the stream without a level word', () => {
    expect(classifyLogLevel('player joined', 'stdout')).toBe('info');
    expect(classifyLogLevel('Segmentation fault', 'stderr')).toBe('error');
    expect(classifyLogLevel('', 'stderr')).toBe('error');
  });

  it('only counts whole words', () => {
    expect(classifyLogLevel('no errors so far', 'stdout')).toBe('info');
    expect(classifyLogLevel('informational: warnings off', 'stdout')).toBe('info');
    expect(classifyLogLevel('terrible lag', 'stdout')).toBe('info');
  });

  it('ignores level words beyond the first 40 characters', () => {
    const prefix = 'x'.repeat(40);
    expect(classifyLogLevel(`${prefix} ERROR late`, 'stdout')).toBe('info');
    expect(classifyLogLevel(`${'x'.repeat(38)} ERROR starts at 39`, 'stdout')).toBe('error');
    expect(classifyLogLevel(`${'x'.repeat(38)} criticality`, 'stdout')).toBe('info');
  });
});
