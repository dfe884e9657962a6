import fs from 'node:fs';
import path from 'node:path';
import proxyaddr from '@fastify/proxy-addr';
import { z } from 'zod';

/**
 * Environment → typed configuration. Every variable is validated once, at start, so a typo
 * stops the process with a message naming the variable instead of failing on the first request.
 */
const booleanFlag = z.enum(['1', '0', 'true', 'false']).transform((value) => value === '1' || value === 'true');

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  PUBLIC_URL: z.url().optional(),
  ALLOWED_HOSTS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/, 'expected host names, each optionally with :port or a leading *. for its subdomains')))
    .optional(),
  TRUST_PROXY: z.string().trim().default('0'),
  IPV6_PREFIX_LENGTH: z.coerce.number().int().min(32).max(128).default(64),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  API_KEY_CACHE_SECONDS: z.coerce.number().min(0).max(3600).default(5),
  USAGE_FLUSH_SECONDS: z.coerce.number().positive().default(10),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(30),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(20000),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(10000),
  GRAPHQL_MAX_OPERATIONS: z.coerce.number().int().min(1).default(20),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().positive().default(10),
  STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  RESPONSE_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  WS_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SUBSCRIPTIONS_PER_KEY: z.coerce.number().int().min(1).default(100),
  WS_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).default(50),
  SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).default(20),
  HEAVY_REQUEST_COST: z.coerce.number().int().min(1).default(10_000),
  HEAVY_REQUESTS_PER_KEY: z.coerce.number().int().min(1).default(2),
  HEAVY_QUEUE_PER_KEY: z.coerce.number().int().min(0).default(8),
  REQUESTS_PER_KEY: z.coerce.number().int().min(1).default(4),
  REQUESTS_PER_ACCOUNT: z.coerce.number().int().min(1).default(8),
  REQUEST_QUEUE_PER_KEY: z.coerce.number().int().min(0).default(128),
  DATABASE_CONNECTIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(200).optional(),
  CORS_ORIGINS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim().toLowerCase().replace(/\/$/, ''))
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^\*$|^https?:\/\/(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/,
            'expected origins such as https://app.example.com (scheme, host, optional port; https://*.example.com for subdomains), or *',
          ),
      ),
    )
    .default([]),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (for example `openssl rand -hex 16`)').optional(),
  METRICS_ADDRESS: z
    .string()
    .regex(/^([A-Za-z0-9.-]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$/, 'expected host:port, such as 0.0.0.0:9464 or [::1]:9464')
    .optional(),
  DEMO_ACCOUNT: booleanFlag.optional(),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters (for example `openssl rand -base64 32`)').optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]/, 'must be an smtp:// or smtps:// URL (for example smtp://user:password@mail.example.com:587)')
    .optional(),
  MAIL_FROM: z.email('must be an email address (the sender of verification and password-reset emails)').optional(),
  OTEL_SDK_DISABLED: booleanFlag.optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none'], 'expected otlp, console or none (one exporter)').optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .refine((value) => value.split(',').every((pair) => !pair.trim() || /^[^=]+=.*$/.test(pair.trim())), 'expected name=value pairs separated by commas')
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('marquee'),
  OTEL_TRACES_SAMPLER: z.enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config {
  env: Environment['NODE_ENV'];
  host: string;
  port: number;
  /** The address printed in URLs handed to callers (widget script, sign-in pages). */
  publicUrl: string | undefined;
  /**
   * Without PUBLIC_URL, the hosts whose Host header may set those URLs (`*.` for subdomains);
   * undefined: any host outside production, none in production.
   */
  allowedHosts: string[] | undefined;
  /** Behind reverse proxies: which of them X-Forwarded-For is believed from (rate limits, logs). */
  trustProxy: TrustedProxies;
  /**
   * The prefix an IPv6 client's per-address budgets are counted by (IPV6_PREFIX_LENGTH, 64): every
   * address of one /64 shares one budget (lib/client-address.ts, budgetAddress).
   */
  ipv6PrefixLength: number;
  dataDir: string;
  /**
   * `connectionsPerAccount`: how many of a pool's connections the statements and transactions of one
   * account's requests may hold at once (db/connection-shares.ts); half the pool unless set.
   */
  database: { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string; readUrl: string | undefined; poolSize: number; connectionsPerAccount?: number };
  redisUrl: string | undefined;
  logLevel: Environment['LOG_LEVEL'];
  /** `json` or `pretty` when LOG_FORMAT forces one; unset, the logger decides (logger.ts, logFormatOf). */
  logFormat: Environment['LOG_FORMAT'];
  rateLimitPerMinute: number;
  /** How long a looked-up API key is trusted before it is read again (revocation by another gateway). */
  apiKeyCacheMs: number;
  usageFlushMs: number;
  graphqlLimits: { maxDepth: number; maxAliases: number; maxCost: number; maxTokens: number; maxOperations: number };
  shutdownGraceMs: number;
  /** How long one statement of an API request may run on PostgreSQL before it is cancelled; 0: no limit. */
  statementTimeoutMs: number;
  /** How long a client may take to send a whole request (headers and body); 0: no limit. */
  requestTimeoutMs: number;
  /** How long the gateway may take to answer a request, from its headers; 0: no limit (http/response-deadline.ts). */
  responseTimeoutMs: number;
  /** What one tenant may hold of the gateway's memory through WebSocket subscriptions (docs/reliability.md). */
  subscriptionLimits: { maxBufferedBytes: number; perKey: number; perConnection: number; connectionsPerKey: number };
  /**
   * Requests priced at `cost` or more (graphql/limits.ts's estimate) run at most `perKey` at once per
   * key, `queuePerKey` more waiting; past that they are refused (docs/reliability.md).
   */
  heavyRequests: { cost: number; perKey: number; queuePerKey: number };
  /**
   * Every request with a key runs within a slot of its key (`perKey` at once) and of its account
   * (`perAccount`), `queuePerKey` more waiting; past that refused (http/request-slots.ts).
   */
  requestSlots: { perKey: number; perAccount: number; queuePerKey: number };
  /**
   * Origins whose pages may call /graphql and /v1.1 for every application (`*`: any), besides each
   * application's whitelisted domains (http/cors.ts, docs/configuration.md).
   */
  corsOrigins: string[];
  /**
   * /metrics: a bearer token it requires (METRICS_TOKEN), and an address of its own it is served on
   * instead of the API's port (METRICS_ADDRESS).
   */
  metrics: { token: string | undefined; address: { host: string; port: number } | undefined };
  /** Create the demo account on an empty database: on by default outside production. */
  demoAccount: boolean;
  /**
   * Encrypts network tokens at rest and signs member tokens. Required in production; elsewhere,
   * when unset, main.ts keeps a generated one in DATA_DIR (see secret.ts).
   */
  secretKey: string | undefined;
  /**
   * Verification and password-reset emails (modules/email). `smtpUrl` unset: nothing is delivered;
   * outside production the worker prints each message and its link to the log instead.
   */
  mail: { smtpUrl: string | undefined; from: string };
  /**
   * Tracing with OpenTelemetry (tracing.ts, docs/observability.md); undefined: off. On when
   * OTEL_TRACES_EXPORTER is otlp or console, or when an OTLP endpoint is set and the exporter is not
   * `none`; OTEL_SDK_DISABLED=true turns it off whatever the rest says.
   */
  tracing:
    | {
        exporter: 'otlp' | 'console';
        /** Where spans are posted: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
        url: string;
        headers: Record<string, string>;
        serviceName: string;
        sampler: { kind: 'always_on' | 'always_off' | 'ratio'; ratio: number; parentBased: boolean };
      }
    | undefined;
}

/**
 * The proxies in front of the gateway whose X-Forwarded-For entries are believed: none; the
 * nearest `hops` (the connection's peer first); or those whose address is in a list. The client
 * address is the first address, from the right, that is not a trusted proxy, so a client cannot
 * choose it by sending the header itself. Never every hop.
 */
export type TrustedProxies = false | { hops: number } | { addresses: string[] };

/** The most proxies a hop count may name: more than any real chain, few enough to be a mistake past it. */
export const maxTrustedHops = 10;

/**
 * TRUST_PROXY: `0`/`false` (none), a number of hops, `true` (one hop, what `1` has always meant:
 * one reverse proxy in front), or a comma-separated list of proxy addresses and CIDR ranges
 * (`loopback`, `linklocal` and `uniquelocal` name the usual private ranges).
 */
function parseTrustProxy(value: string): TrustedProxies | string {
  const lower = value.toLowerCase();
  if (lower === '0' || lower === 'false') return false;
  if (lower === 'true') return { hops: 1 };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= maxTrustedHops ? { hops } : `at most ${maxTrustedHops} hops; list the proxies' addresses instead`;
  }
  const addresses = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(addresses);
    return addresses.length ? { addresses } : 'expected 0, true, a number of hops or a list of proxy addresses';
  } catch (error) {
    return `expected 0, true, a number of hops or a list of proxy addresses and CIDR ranges (${(error as Error).message})`;
  }
}

function hostAndPort(value: string): { host: string; port: number } {
  const separator = value.lastIndexOf(':');
  return { host: value.slice(0, separator).replace(/^\[(.*)\]$/, '$1'), port: Number(value.slice(separator + 1)) };
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are treated as unset: `PORT= npm start` should mean "the default".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const parsed = environmentSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`));
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && !e.SECRET_KEY) {
    throw new ConfigError(['SECRET_KEY: required in production (at least 32 characters)']);
  }
  // /metrics counts every tenant's operations and errors: in production it is never open to whoever reaches the API port.
  if (e.NODE_ENV === 'production' && !e.METRICS_TOKEN && !e.METRICS_ADDRESS) {
    throw new ConfigError([
      'METRICS_TOKEN or METRICS_ADDRESS: one is required in production, so /metrics is not public on the API port ' +
        '(METRICS_TOKEN: a bearer token of at least 16 characters scrapers send; METRICS_ADDRESS: host:port /metrics is served on instead, such as 127.0.0.1:9464)',
    ]);
  }
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if (typeof trustProxy === 'string') throw new ConfigError([`TRUST_PROXY: ${trustProxy}`]);
  if (e.SMTP_URL && !e.MAIL_FROM) throw new ConfigError(['MAIL_FROM: required with SMTP_URL (the address emails are sent from)']);
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    allowedHosts: e.ALLOWED_HOSTS,
    trustProxy,
    ipv6PrefixLength: e.IPV6_PREFIX_LENGTH,
    dataDir,
    database: e.DATABASE_URL
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          readUrl: e.DATABASE_READ_URL,
          poolSize: e.DATABASE_POOL_SIZE,
          connectionsPerAccount: Math.min(e.DATABASE_CONNECTIONS_PER_ACCOUNT ?? connectionShare(e.DATABASE_POOL_SIZE), e.DATABASE_POOL_SIZE),
        }
      : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    apiKeyCacheMs: e.API_KEY_CACHE_SECONDS * 1000,
    usageFlushMs: e.USAGE_FLUSH_SECONDS * 1000,
    graphqlLimits: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxCost: e.GRAPHQL_MAX_COST,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxOperations: e.GRAPHQL_MAX_OPERATIONS,
    },
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    responseTimeoutMs: e.RESPONSE_TIMEOUT_MS,
    subscriptionLimits: { maxBufferedBytes: e.WS_MAX_BUFFERED_BYTES, perKey: e.SUBSCRIPTIONS_PER_KEY, perConnection: e.SUBSCRIPTIONS_PER_CONNECTION, connectionsPerKey: e.WS_CONNECTIONS_PER_KEY },
    heavyRequests: { cost: e.HEAVY_REQUEST_COST, perKey: e.HEAVY_REQUESTS_PER_KEY, queuePerKey: e.HEAVY_QUEUE_PER_KEY },
    requestSlots: { perKey: e.REQUESTS_PER_KEY, perAccount: e.REQUESTS_PER_ACCOUNT, queuePerKey: e.REQUEST_QUEUE_PER_KEY },
    corsOrigins: e.CORS_ORIGINS,
    metrics: { token: e.METRICS_TOKEN, address: e.METRICS_ADDRESS ? hostAndPort(e.METRICS_ADDRESS) : undefined },
    demoAccount: e.DEMO_ACCOUNT ?? e.NODE_ENV !== 'production',
    secretKey: e.SECRET_KEY,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? 'no-reply@localhost' },
    tracing: tracingOf(e),
  };
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The OTEL_* settings as the gateway uses them (only these: nothing else of OpenTelemetry's environment is read). */
function tracingOf(e: Environment): Config['tracing'] {
  if (e.OTEL_SDK_DISABLED) return undefined;
  const exporter = e.OTEL_TRACES_EXPORTER ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : 'none');
  if (exporter === 'none') return undefined;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/$/, '')}/v1/traces`;
  const headers = Object.fromEntries(
    (e.OTEL_EXPORTER_OTLP_HEADERS ?? '')
      .split(',')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const split = pair.indexOf('=');
        return [decoded(pair.slice(0, split).trim()), decoded(pair.slice(split + 1).trim())];
      }),
  );
  const name = e.OTEL_TRACES_SAMPLER;
  const kind = name.endsWith('always_off') ? 'always_off' : name.endsWith('traceidratio') ? 'ratio' : 'always_on';
  return {
    exporter,
    url,
    headers,
    serviceName: e.OTEL_SERVICE_NAME,
    sampler: { kind, ratio: e.OTEL_TRACES_SAMPLER_ARG, parentBased: name.startsWith('parentbased_') },
  };
}

/**
 * Reads `.env` from the working directory (or the file ENV_FILE names) into the environment before
 * the configuration is read: a variable already set in the environment wins over the file. Returns
 * the file read, if any. A missing `.env` is fine; a missing ENV_FILE is a configuration error.
 */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.ENV_FILE || '.env';
  if (!fs.existsSync(file)) {
    if (env.ENV_FILE) throw new ConfigError([`ENV_FILE: no file at ${path.resolve(file)}`]);
    return undefined;
  }
  try {
    process.loadEnvFile(file);
  } catch (error) {
    throw new ConfigError([`${env.ENV_FILE ? 'ENV_FILE' : '.env'}: cannot read ${path.resolve(file)}: ${(error as Error).message}`]);
  }
  return path.resolve(file);
}

/** An account's share of a pool by default: half its connections, at least one. */
export function connectionShare(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}
