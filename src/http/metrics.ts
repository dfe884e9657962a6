import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one gateway; a registry per server keeps test servers apart. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'marquee_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'marquee_http_request_duration_seconds',
      help: 'HTTP request duration by route',
      labelNames: ['route', 'method'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    roundTrips: new Histogram({
      name: 'marquee_sql_round_trips_per_request',
      help: 'SQL statements sent while serving one request',
      labelNames: ['route'] as const,
      buckets: [0, 1, 2, 3, 4, 5, 8, 13, 21, 50],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'marquee_rate_limited_total',
      help: 'Requests refused by the rate limit',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
