import { BuildRejected } from './build-rejected';

export interface ZipLimits {
  /** Sum of uncompressed sizes, declared and actually written. */
  maxUncompressedBytes: number;
  /** Uncompressed bytes per byte of archive, checked once the archive unpacks to more than 1 MiB. */
  maxRatio: number;
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxUncompressedBytes: 8 * 2 ** 30,
  maxRatio: 100,
  maxEntries: 100_000,
};

/** Shared by the check on declared sizes and the one on bytes actually written. */
export function sizeLimitExceeded(limits: ZipLimits): BuildRejected {
  const max = limits.maxUncompressedBytes;
  const shown = max >= 2 ** 30 ? `${+(max / 2 ** 30).toFixed(1)} GiB` : `${+(max / 2 ** 20).toFixed(1)} MiB`;
  return new BuildRejected(`archive unpacks to more than ${shown}, the size limit for a build`);
}
