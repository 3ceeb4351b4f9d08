import { splitArgs } from './split-args';

describe('splitArgs', () => {
  it.each<[string | null, string[]]>([
    [null, []],
    ['', []],
    ['   ', []],
    ['-port 7777 -map de_dust', ['-port', '7777', '-map', 'de_dust']],
    ['  a \t b\nc  ', ['a', 'b', 'c']],
    ["--name 'My Server'", ['--name', 'My Server']],
    ['--name "My Server"', ['--name', 'My Server']],
    ['--motd="Welcome, friend"', ['--motd=Welcome, friend']],
    ["a'b c'd", ['ab cd']],
    ["''", ['']],
    ['"" x', ['', 'x']],
    ["'single \\ and \"double\"'", ['single \\ and "double"']],
    ['"say \\"hi\\" \\\\ \\$HOME \\`x\\`"', ['say "hi" \\ $HOME `x`']],
    ['"keep \\n as is"', ['keep \\n as is']],
    ['one\\ word', ['one word']],
    ['\\"quoted\\"', ['"quoted"']],
    ['trailing\\', ['trailing\\']],
    ['$HOME ~ *.txt', ['$HOME', '~', '*.txt']],
  ])('%j → %j', (input, expected) => {
    expect(splitArgs(input)).toEqual(expected);
  });

  it('rejects an unterminated quote', () => {
    expect(() => splitArgs("--name 'oops")).toThrow(/unterminated '/);
    expect(() => splitArgs('--name "oops')).toThrow(/unterminated "/);
  });
});
