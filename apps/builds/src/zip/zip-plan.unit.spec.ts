import { BuildRejected } from './build-rejected';
import { DEFAULT_ZIP_LIMITS } from './zip-limits';
import { planEntries, type EntryHeader } from './zip-plan';

const MiB = 2 ** 20;
const header = (name: string, over: Partial<EntryHeader> = {}): EntryHeader => ({
  name,
  unixMode: 0,
  uncompressedSize: 10,
  decodable: true,
  ...over,
});
const plan = (headers: EntryHeader[], archiveBytes = 1000, limits = DEFAULT_ZIP_LIMITS) =>
  planEntries(headers, archiveBytes, limits);

describe('planEntries', () => {
  it('plans files and folders in order, keeping only the executable bit', () => {
    expect(
      plan([
        header('bin/', { uncompressedSize: 0 }),
        header('bin/server', { unixMode: 0o104775 }), // setuid + group write: both dropped
        header('readme.txt', { unixMode: 0o100666 }),
        header('windows-made.txt'), // no unix attributes
        header('data', { unixMode: 0o040755, uncompressedSize: 0 }),
      ]),
    ).toEqual([
      { path: 'bin', kind: 'directory', mode: 0o755, size: 0 },
      { path: 'bin/server', kind: 'file', mode: 0o755, size: 10 },
      { path: 'readme.txt', kind: 'file', mode: 0o644, size: 10 },
      { path: 'windows-made.txt', kind: 'file', mode: 0o644, size: 10 },
      { path: 'data', kind: 'directory', mode: 0o755, size: 0 },
    ]);
  });

  it.each([
    ['a symlink', 0o120777, 'symbolic link'],
    ['a FIFO', 0o010644, 'device, FIFO or socket'],
    ['a character device', 0o020644, 'device, FIFO or socket'],
    ['a block device', 0o060644, 'device, FIFO or socket'],
    ['a socket', 0o140644, 'device, FIFO or socket'],
  ])('rejects %s', (_, unixMode, why) => {
    expect(() => plan([header('server'), header('x', { unixMode })])).toThrow(why);
  });

  it('rejects entries it cannot decode', () => {
    expect(() => plan([header('x', { decodable: false })])).toThrow('encrypted or uses an unsupported compression method');
  });

  it('rejects unsafe names', () => {
    expect(() => plan([header('../evil')])).toThrow(BuildRejected);
  });

  it.each([
    ['the same name twice', ['a/b', 'a/b']],
    ['names that normalize the same', ['a/b', './a//b']],
    ['a file and a folder of the same name', ['a', 'a/']],
  ])('rejects %s as duplicates', (_, names) => {
    expect(() => plan(names.map((n) => header(n)))).toThrow('duplicate entry');
  });

  it('rejects an entry beneath a file, in either order', () => {
    expect(() => plan([header('a'), header('a/b/c')])).toThrow('entry "a/b/c" is inside "a", which is a file');
    expect(() => plan([header('a/b/c'), header('a/b')])).toThrow('entry "a/b/c" is inside "a/b", which is a file');
  });

  it('rejects when declared sizes add up to more than the limit', () => {
    const limits = { ...DEFAULT_ZIP_LIMITS, maxUncompressedBytes: 50 * MiB };
    const headers = [header('a', { uncompressedSize: 30 * MiB }), header('b', { uncompressedSize: 30 * MiB })];
    expect(() => plan(headers, 60 * MiB, limits)).toThrow('archive unpacks to more than 50 MiB');
  });

  it('rejects a ratio above the limit, measured against the archive size', () => {
    expect(() => plan([header('a', { uncompressedSize: 101 * MiB })], MiB)).toThrow('expands 101 times (limit 100)');
    expect(plan([header('a', { uncompressedSize: 100 * MiB })], MiB)).toHaveLength(1);
  });

  it('lets small archives compress as well as they like', () => {
    expect(plan([header('a', { uncompressedSize: MiB })], 100)).toHaveLength(1);
  });
});
