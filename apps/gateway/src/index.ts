export * from './gateway.module';
export * from './http-app';
export * from './http/route-table';
export * from './legacy';
