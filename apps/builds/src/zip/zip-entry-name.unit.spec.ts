import { BuildRejected } from './build-rejected';
import { checkEntryName } from './zip-entry-name';

describe('checkEntryName', () => {
  it.each([
    ['server', 'server'],
    ['bin/server', 'bin/server'],
    ['Game_Data/', 'Game_Data'],
    ['./bin//server', 'bin/server'],
    ['bin\\win\\server.exe', 'bin/win/server.exe'],
    ['a..b/...', 'a..b/...'],
    ['données/café.txt', 'données/café.txt'],
    ['weird: name', 'weird: name'],
  ])('accepts %j as %j', (name, normalized) => {
    expect(checkEntryName(name)).toBe(normalized);
  });

  it.each([
    ['/etc/passwd', 'absolute path'],
    ['\\evil', 'absolute path'],
    ['\\\\server\\share\\x', 'absolute path'],
    ['C:\\Windows\\x', 'drive letter'],
    ['C:/Windows/x', 'drive letter'],
    ['c:relative', 'drive letter'],
    ['..', '".."'],
    ['../evil.txt', '".."'],
    ['../../evil.txt', '".."'],
    ['a/../../evil.txt', '".."'],
    ['a/..', '".."'],
    ['..\\evil', '".."'],
    ['a\\..\\..\\evil', '".."'],
    ['bad\u0000name', 'control characters'],
    ['line\nbreak', 'control characters'],
    ['del\u007f', 'control characters'],
    ['', 'empty path'],
    ['./', 'empty path'],
    [`${'x'.repeat(256)}/y`, 'too long'],
  ])('rejects %j (%s)', (name, why) => {
    expect(() => checkEntryName(name)).toThrow(BuildRejected);
    expect(() => checkEntryName(name)).toThrow(why);
  });

  it('quotes the offending name in the message, escaped', () => {
    expect(() => checkEntryName('a\u0000b')).toThrow('unsafe entry name "a\\u0000b"');
  });
});
