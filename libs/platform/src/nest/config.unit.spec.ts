import { loadConfig } from './config';

describe('the event stream retention settings', () => {
  it('default to 7 days and no byte limit (-1: a byte limit reserves NATS storage, so it is opt-in)', () => {
    expect(loadConfig({}).eventRetention).toEqual({ maxAgeMs: 168 * 3600_000, maxBytes: -1 });
  });

  it('take hours and bytes from the environment', () => {
    expect(loadConfig({ SPAWNPOINT_EVENTS_MAX_AGE_HOURS: '24', SPAWNPOINT_EVENTS_MAX_BYTES: '1073741824' }).eventRetention)
      .toEqual({ maxAgeMs: 24 * 3600_000, maxBytes: 1024 ** 3 });
  });

  it('refuse a value that is not a positive number, naming the variable', () => {
    expect(() => loadConfig({ SPAWNPOINT_EVENTS_MAX_AGE_HOURS: 'a week' })).toThrow('SPAWNPOINT_EVENTS_MAX_AGE_HOURS must be a positive number, not "a week"');
    expect(() => loadConfig({ SPAWNPOINT_EVENTS_MAX_BYTES: '0' })).toThrow('SPAWNPOINT_EVENTS_MAX_BYTES must be a positive number, not "0"');
  });
});

describe('the workflow dispatch concurrency setting', () => {
  it('defaults to 64 intents at once, takes a positive number from the environment, and refuses anything else', () => {
    expect(loadConfig({}).workflowDispatchConcurrency).toBe(64);
    expect(loadConfig({ SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY: '16' }).workflowDispatchConcurrency).toBe(16);
    expect(() => loadConfig({ SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY: '0' })).toThrow('SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY must be a positive number, not "0"');
  });
});

describe('the database pool size setting', () => {
  it('defaults to 10 connections per pool, takes a positive number from the environment, and refuses anything else', () => {
    expect(loadConfig({}).dbPoolSize).toBe(10);
    expect(loadConfig({ SPAWNPOINT_DB_POOL_SIZE: '4' }).dbPoolSize).toBe(4);
    expect(() => loadConfig({ SPAWNPOINT_DB_POOL_SIZE: '-1' })).toThrow('SPAWNPOINT_DB_POOL_SIZE must be a positive number, not "-1"');
  });
});
