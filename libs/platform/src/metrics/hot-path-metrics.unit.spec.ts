// The hot-path counter and histogram must expose exactly what prom-client's own classes would for the
// same observations (bucket edges included), and reset like them.
import { Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-path-metrics';

const BUCKETS = [0.001, 0.005, 0.01, 0.1, 1];
const OBSERVED = [0, 0.0005, 0.001, 0.001, 0.003, 0.005, 0.0100001, 0.1, 0.5, 1, 1.5, 30];

describe('hot-path metrics', () => {
  it('expose the same histogram text as prom-client for the same observations', async () => {
    const hot = new Registry();
    const reference = new Registry();
    const h = new HotHistogram('t_duration_seconds', 'help text', ['method', 'route'], BUCKETS, hot);
    const r = new Histogram({ name: 't_duration_seconds', help: 'help text', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [reference] });
    OBSERVED.forEach((v, i) => {
      (i % 3 ? h.labels('GET', '/a/:id') : h.labels('POST', '/b')).observe(v);
      r.observe(i % 3 ? { method: 'GET', route: '/a/:id' } : { method: 'POST', route: '/b' }, v);
    });
    expect(await hot.metrics()).toBe(await reference.metrics());
    expect(await hot.metrics()).toContain('t_duration_seconds_bucket{le="0.001",method="GET",route="/a/:id"} 2');
  });

  it('expose the same counter text as prom-client, and start again from nothing on reset', async () => {
    const hot = new Registry();
    const reference = new Registry();
    const c = new HotCounter('t_requests_total', 'help text', ['status'], hot);
    const r = new Counter({ name: 't_requests_total', help: 'help text', labelNames: ['status'], registers: [reference] });
    c.labels('200').inc();
    c.labels('200').inc(2);
    c.labels('404').inc();
    r.inc({ status: '200' }, 3);
    r.inc({ status: '404' });
    expect(await hot.metrics()).toBe(await reference.metrics());
    hot.resetMetrics();
    expect(await hot.metrics()).not.toContain('t_requests_total{');
  });

  it('keeps one series per label set, whoever asks for it', () => {
    const c = new HotCounter('t_total', 'h', ['a', 'b'], new Registry());
    expect(c.labels('x', 'y')).toBe(c.labels('x', 'y'));
    expect(c.labels('x', 'y')).not.toBe(c.labels('xy', ''));
  });
});
