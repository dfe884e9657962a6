import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the metrics read from the gateway's workers when scraped. */
export interface MetricSources {
  /** Per account, seconds since its kept score windows end (the kept-data worker). */
  scoreWindowLag?: () => Map<number, number>;
}

/** Prometheus metrics of one gateway; a registry per server keeps test servers apart. */
export function createMetrics(sources: MetricSources = {}) {
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
    scoreWindowLag: new Gauge({
      name: 'score_window_lag_seconds',
      help: 'Seconds since the least advanced kept score window of an account ends, per account; account="max" is the largest',
      labelNames: ['account'] as const,
      registers: [registry],
      collect() {
        if (!sources.scoreWindowLag) return;
        this.reset();
        const lags = sources.scoreWindowLag();
        for (const [accountId, seconds] of lags) this.set({ account: String(accountId) }, seconds);
        this.set({ account: 'max' }, Math.max(0, ...lags.values()));
      },
    }),
    rateLimited: new Counter({
      name: 'marquee_rate_limited_total',
      help: 'Requests refused by the rate limit',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
