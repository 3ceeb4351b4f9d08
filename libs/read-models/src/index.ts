export * from './migrate';
export * from './prisma';
export * from './generated/client';
