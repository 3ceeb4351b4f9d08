export * from './migrate';
export * from './prisma';
export * from './generated/client';
export * from './rate-limit-buckets';
export * from './advisory-locks';
export * from './outage-safe-pool';
export * from './leadership';
