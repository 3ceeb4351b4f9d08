// Wire shapes shared by several services. The settings shapes are the domain's own types (type-only
// import: proto stays free of runtime code).
export type { Plan, PortConfig, ProjectSettings, RateLimits } from '@spawnpoint/domain';
