import { BuildRejected } from './build-rejected';
import { checkEntryName } from './zip-entry-name';

export interface ArchiveFile {
  /** Normalized relative posix path, as returned by checkEntryName. */
  path: string;
  /** Permission bits; only the executable bits matter here. */
  mode: number;
  isFile: boolean;
}

const WELL_KNOWN_NAMES = ['server', 'start.sh'];
// macOS Finder puts resource forks here next to the real content; it must not hide a wrapper folder.
const MAC_METADATA_FOLDER = '__MACOSX';
const LOOKED_FOR =
  'looked for a file named "server" or "start.sh", a single "*.x86_64" file, or a single file with the executable bit set';

/** Picks the file to run: the explicit path when given, else by convention. Returns its archive path. */
export function findExecutable(files: readonly ArchiveFile[], explicitPath?: string): string {
  return chooseExecutable(files, explicitPath).path;
}

/** findExecutable, with why that file was chosen (in words, for the build's logs). */
export function chooseExecutable(files: readonly ArchiveFile[], explicitPath?: string): { path: string; how: string } {
  if (explicitPath !== undefined) return { path: findExplicit(files, explicitPath), how: 'named by executable_path' };

  const relevant = files.filter((f) => firstSegment(f.path) !== MAC_METADATA_FOLDER);
  const wrapper = singleTopLevelFolder(relevant);
  const prefix = wrapper === undefined ? '' : `${wrapper}/`;
  const here = relevant.filter(
    (f) => f.isFile && f.path.startsWith(prefix) && !f.path.slice(prefix.length).includes('/'),
  );

  const wellKnown = WELL_KNOWN_NAMES.map((name) => here.find((f) => f.path === prefix + name)).find(Boolean);
  if (wellKnown) return { path: wellKnown.path, how: `a file named "${wellKnown.path.slice(prefix.length)}"` };
  const unityPlayers = here.filter((f) => f.path.endsWith('.x86_64'));
  if (unityPlayers.length === 1) return { path: unityPlayers[0].path, how: 'the only "*.x86_64" file' };
  const executables = here.filter((f) => (f.mode & 0o111) !== 0);
  if (executables.length === 1) return { path: executables[0].path, how: 'the only file with the executable bit set' };

  const where = wrapper === undefined ? 'at the top level of the archive' : `in its only top-level folder "${wrapper}"`;
  const ambiguous = unityPlayers.length > 1 ? unityPlayers : executables;
  const several = ambiguous.length > 1 ? ` (found several: ${listPaths(ambiguous)})` : '';
  throw new BuildRejected(`no executable found ${where}: ${LOOKED_FOR}${several}; set executable_path to choose one`);
}

function findExplicit(files: readonly ArchiveFile[], explicitPath: string): string {
  const wanted = normalizeOrUndefined(explicitPath);
  const file = files.find((f) => f.isFile && f.path === wanted);
  if (file) return file.path;
  throw new BuildRejected(`executable_path ${JSON.stringify(explicitPath)} not found in archive`);
}

// A path that fails the entry-name checks cannot name any extracted file, so it is simply "not found".
function normalizeOrUndefined(path: string): string | undefined {
  try {
    return checkEntryName(path);
  } catch {
    return undefined;
  }
}

/** The folder name when everything in the archive sits inside one top-level folder. */
function singleTopLevelFolder(files: readonly ArchiveFile[]): string | undefined {
  const tops = new Set(files.map((f) => firstSegment(f.path)));
  if (tops.size !== 1) return undefined;
  const [top] = tops;
  return files.some((f) => f.isFile && f.path === top) ? undefined : top;
}

function firstSegment(path: string): string {
  return path.split('/', 1)[0];
}

function listPaths(files: readonly ArchiveFile[]): string {
  const shown = files.slice(0, 5).map((f) => f.path);
  return files.length > shown.length ? `${shown.join(', ')}, …` : shown.join(', ');
}
