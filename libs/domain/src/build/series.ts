// Versions per (project, build name): one small stream per name hands out the next version under
// optimistic concurrency, so two concurrent uploads never get the same version, and a deleted
// build's version is never reused.
import { Decider, DomainEvent } from '../kit';

export type VersionAllocated = DomainEvent<'BuildVersionAllocated', { projectId: string; name: string; buildId: string; version: number; at: string }>;
export type BuildSeriesCommand = { type: 'AllocateVersion'; projectId: string; name: string; buildId: string; now: string };
export type BuildSeriesState = { lastVersion: number };

export const buildSeriesStream = (projectId: string, name: string) => `buildseries-${projectId}:${name}`;

export const buildSeriesDecider: Decider<BuildSeriesCommand, VersionAllocated, BuildSeriesState> = {
  initialState: { lastVersion: 0 },
  decide: (c, s) => [{ type: 'BuildVersionAllocated', data: { projectId: c.projectId, name: c.name, buildId: c.buildId, version: s.lastVersion + 1, at: c.now } }],
  evolve: (s, e) => ({ lastVersion: Math.max(s.lastVersion, e.data.version) }),
};
