import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUsage } from '../db/client.js';

/** What the metrics read from the gateway's workers when scraped. */
export interface MetricSources {
  /** Per account, seconds since its kept score windows end (the kept-data worker). */
  scoreWindowLag?: () => Map<number, number>;
  /** PostgreSQL's pools (db/client.ts); none on the embedded database. */
  pools?: () => PoolUsage[];
  /** Subscriptions open on this gateway. */
  openSubscriptions?: () => number;
  /** The asynchronous recording queue, shared by every gateway (read from the database). */
  activityQueue?: () => Promise<{ depth: number; oldestEnqueuedAt: Date | null }>;
  /** Presave jobs not done, by status, shared by every gateway (read from the database). */
  presaveJobs?: () => Promise<{ status: string; jobs: number }[]>;
}

/** How long a scrape waits for a figure read from the database before leaving it out. */
const databaseReadTimeoutMs = 2000;

/** A figure from the database, or nothing when the database is slow or down: the scrape still answers. */
async function readOrSkip<T>(read: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), databaseReadTimeoutMs);
  });
  try {
    return await Promise.race([read().catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Prometheus metrics of one gateway; a registry per server keeps test servers apart. */
export function createMetrics(sources: MetricSources = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // The two queue figures come from one read, shared by both gauges' collects (a scrape runs them together).
  let backlogRead: Promise<{ depth: number; oldestEnqueuedAt: Date | null } | undefined> | undefined;
  const backlog = () => {
    const read = sources.activityQueue;
    if (!read) return Promise.resolve(undefined);
    return (backlogRead ??= readOrSkip(read).finally(() => {
      backlogRead = undefined;
    }));
  };
  // One scale for HTTP and GraphQL latency, so the two histograms compare bucket for bucket.
  const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
  const metrics = {
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
      buckets: latencyBuckets,
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
    graphqlOperations: new Counter({
      name: 'marquee_graphql_operations_total',
      help: 'GraphQL operations on /graphql by operation name (known names, else "other"), type and outcome (error: any error in the answer)',
      labelNames: ['operation', 'type', 'outcome'] as const,
      registers: [registry],
    }),
    graphqlDuration: new Histogram({
      name: 'marquee_graphql_operation_duration_seconds',
      help: 'GraphQL operation duration on /graphql, from parsing to the answer, by operation name and type',
      labelNames: ['operation', 'type'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'marquee_errors_total',
      help: 'Errors answered, by surface (rest, graphql, plain) and code (docs/errors.md)',
      labelNames: ['surface', 'code'] as const,
      registers: [registry],
    }),
    poolConnections: new Gauge({
      name: 'marquee_db_pool_connections',
      help: 'PostgreSQL pool connections by pool and state: in_use, or waiting (statements and transactions queued for a connection)',
      labelNames: ['pool', 'state'] as const,
      registers: [registry],
      collect() {
        if (!sources.pools) return;
        for (const { pool, size, busy } of sources.pools()) {
          this.set({ pool, state: 'in_use' }, Math.min(busy, size));
          this.set({ pool, state: 'waiting' }, Math.max(0, busy - size));
        }
      },
    }),
    poolSize: new Gauge({
      name: 'marquee_db_pool_size',
      help: 'PostgreSQL pool size (DATABASE_POOL_SIZE) by pool',
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        for (const { pool, size } of sources.pools?.() ?? []) this.set({ pool }, size);
      },
    }),
    openSubscriptions: new Gauge({
      name: 'marquee_subscriptions_open',
      help: 'GraphQL subscriptions open on this gateway',
      registers: [registry],
      collect() {
        if (sources.openSubscriptions) this.set(sources.openSubscriptions());
      },
    }),
    queueDepth: new Gauge({
      name: 'marquee_activity_queue_depth',
      help: 'Activity records queued for asynchronous recording (async=1), all gateways; counted up to 100000',
      registers: [registry],
      async collect() {
        const read = await backlog();
        if (read) this.set(read.depth);
      },
    }),
    queueOldestAge: new Gauge({
      name: 'marquee_activity_queue_oldest_age_seconds',
      help: 'Seconds the oldest queued activity record has waited; 0 when the queue is empty',
      registers: [registry],
      async collect() {
        const read = await backlog();
        if (read) this.set(read.oldestEnqueuedAt ? Math.max(0, (Date.now() - read.oldestEnqueuedAt.getTime()) / 1000) : 0);
      },
    }),
    presaveJobs: new Gauge({
      name: 'marquee_presave_jobs',
      help: 'Presave jobs not done, by state (queued, running), all gateways',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        if (!sources.presaveJobs) return;
        const counts = await readOrSkip(sources.presaveJobs);
        if (!counts) return;
        for (const state of ['queued', 'running']) this.set({ state }, counts.find((count) => count.status === state)?.jobs ?? 0);
      },
    }),
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
