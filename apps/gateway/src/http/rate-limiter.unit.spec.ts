import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('allows the limit per second, then refuses with Retry-After, then refills', () => {
    let now = 0;
    const rl = new RateLimiter(() => now);
    for (let i = 0; i < 10; i++) expect(rl.take('k', 10)).toMatchObject({ allowed: true, limit: 10, remaining: 9 - i });
    expect(rl.take('k', 10)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    now = 500;
    expect(rl.take('k', 10).allowed).toBe(true);
    expect(rl.take('other', 10).remaining).toBe(9);
  });
});
