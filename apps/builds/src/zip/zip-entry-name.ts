import { BuildRejected } from './build-rejected';

// Linux NAME_MAX; longer segments would fail later with a less helpful error.
const MAX_SEGMENT_BYTES = 255;

/**
 * Validates a ZIP entry name and returns it as a normalized relative posix path
 * (no `.` or empty segments, no trailing slash). Throws BuildRejected for anything
 * that could escape the extraction root or that a file system would mangle.
 */
export function checkEntryName(name: string): string {
  const reject = (why: string): never => {
    throw new BuildRejected(`unsafe entry name ${JSON.stringify(name)}: ${why}`);
  };
  // Windows tools write backslashes; treat them as separators so `..\x` cannot slip through.
  const slashed = name.replace(/\\/g, '/');
  if (/[\x00-\x1f\x7f]/.test(name)) reject('contains control characters');
  if (slashed.startsWith('/')) reject('absolute path');
  if (/^[a-zA-Z]:/.test(slashed)) reject('absolute path (drive letter)');
  const segments = slashed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) reject('contains a ".." path segment');
  if (segments.length === 0) reject('empty path');
  if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES)) reject('path segment too long');
  return segments.join('/');
}
