export const scales = {
  small: { members: 10_000, activities: 200_000 },
  medium: { members: 100_000, activities: 2_000_000 },
  large: { members: 1_000_000, activities: 20_000_000 },
} as const;
export type ScaleName = keyof typeof scales;

export const benchDefaults = {
  /** A database of its own: the generator adds an account per run, the gateway reads it in production mode. */
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/marquee_bench',
  /** Seals the generated network tokens; the gateway under test gets the same one. */
  secretKey: 'bench-secret-key-of-at-least-32-characters',
  /** The production gateway requires it (or METRICS_ADDRESS) and the run reads its round trips from /metrics with it. */
  metricsToken: 'bench-metrics-token-0123456789',
  /** Every generated member signs in by email with this password. */
  password: 'bench-password',
};
