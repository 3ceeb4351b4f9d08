export * from './registry';
export * from './scrape-gauge';
export * from './bus-metrics';
export * from './http-metrics';
export * from './event-store-metrics';
export * from './service-metrics';
export * from './domain-gauges';
