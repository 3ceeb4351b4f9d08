import { BuildRejected } from './build-rejected';
import { chooseExecutable, findExecutable, type ArchiveFile } from './find-executable';

const file = (path: string, mode = 0o644): ArchiveFile => ({ path, mode, isFile: true });
const dir = (path: string): ArchiveFile => ({ path, mode: 0, isFile: false });

describe('findExecutable', () => {
  it('prefers a top-level "server", then "start.sh"', () => {
    expect(findExecutable([file('start.sh'), file('server'), file('Game.x86_64')])).toBe('server');
    expect(findExecutable([file('start.sh'), file('Game.x86_64'), file('tool', 0o755)])).toBe('start.sh');
  });

  it('ignores a "server" that is not at the top level', () => {
    expect(findExecutable([file('tools/server'), file('Game.x86_64')])).toBe('Game.x86_64');
  });

  it('takes a single *.x86_64, else a single executable file', () => {
    expect(findExecutable([file('Game.x86_64'), file('UnityPlayer.so', 0o755)])).toBe('Game.x86_64');
    expect(findExecutable([file('README.md'), file('mygame', 0o744), file('lib/helper', 0o755)])).toBe('mygame');
  });

  it('falls back to the executable bit when there are several *.x86_64', () => {
    expect(findExecutable([file('a.x86_64'), file('b.x86_64', 0o755)])).toBe('b.x86_64');
  });

  it('looks inside a single top-level folder, with or without its directory entry', () => {
    expect(findExecutable([dir('MyGame'), file('MyGame/server'), file('MyGame/data/x')])).toBe('MyGame/server');
    expect(findExecutable([file('MyGame/Game.x86_64'), file('MyGame/Game_Data/level0')])).toBe('MyGame/Game.x86_64');
  });

  it('ignores the __MACOSX folder that Finder adds next to the wrapper', () => {
    const files = [file('MyGame/start.sh'), dir('__MACOSX'), file('__MACOSX/MyGame/._start.sh')];
    expect(findExecutable(files)).toBe('MyGame/start.sh');
  });

  it('does not treat a lone top-level file as a wrapper folder', () => {
    expect(findExecutable([file('server')])).toBe('server');
  });

  it('rejects with what it looked for, and the ambiguous candidates', () => {
    const run = () => findExecutable([file('a.x86_64'), file('b.x86_64'), file('README.md')]);
    expect(run).toThrow(BuildRejected);
    expect(run).toThrow(/at the top level.*"server" or "start\.sh".*\*\.x86_64.*executable bit.*found several: a\.x86_64, b\.x86_64.*executable_path/);
  });

  it('names the wrapper folder when nothing is found inside it', () => {
    expect(() => findExecutable([file('MyGame/readme.txt')])).toThrow('in its only top-level folder "MyGame"');
  });

  it('rejects an empty archive', () => {
    expect(() => findExecutable([])).toThrow(BuildRejected);
  });

  describe('with an explicit executable_path', () => {
    const files = [file('server'), file('bin/run.sh'), dir('bin')];

    it('uses it, normalizing the way entry names are normalized', () => {
      expect(findExecutable(files, 'bin/run.sh')).toBe('bin/run.sh');
      expect(findExecutable(files, './bin/run.sh')).toBe('bin/run.sh');
    });

    it.each(['bin/missing', 'bin', '../server', '/server', ''])('rejects %j, which is not a file in the archive', (p) => {
      expect(() => findExecutable(files, p)).toThrow(new BuildRejected(`executable_path ${JSON.stringify(p)} not found in archive`));
    });
  });
});

describe('chooseExecutable', () => {
  it('says why the file was chosen (for the build\'s logs)', () => {
    expect(chooseExecutable([file('MyGame/server'), file('MyGame/x')])).toEqual({ path: 'MyGame/server', how: 'a file named "server"' });
    expect(chooseExecutable([file('Game.x86_64'), file('tool', 0o755)])).toEqual({ path: 'Game.x86_64', how: 'the only "*.x86_64" file' });
    expect(chooseExecutable([file('a.x86_64'), file('b.x86_64', 0o755)])).toEqual({ path: 'b.x86_64', how: 'the only file with the executable bit set' });
    expect(chooseExecutable([file('bin/run.sh'), file('server')], 'bin/run.sh')).toEqual({ path: 'bin/run.sh', how: 'named by executable_path' });
  });
});
