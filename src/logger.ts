import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { redactUrl } from './lib/url-credentials.js';
import { traceFields } from './tracing.js';

type LogSettings = Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat' | 'env' | 'tracing'>>;

/**
 * How log lines are written: LOG_FORMAT when set; otherwise pretty (pino-pretty: one coloured line
 * per entry) for a person watching a terminal outside production, JSON for everything else (a
 * pipe, a file, a container's log collector, production).
 */
export function logFormatOf(config: Partial<Pick<Config, 'logFormat' | 'env'>>, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (config.logFormat) return config.logFormat;
  return stdoutIsTerminal && config.env !== 'production' ? 'pretty' : 'json';
}

/**
 * pino-pretty, a development dependency, as a stream in this process (no worker thread), writing to
 * `destination` or stdout; undefined where it is not installed (an image built without development
 * dependencies), and the logs stay JSON.
 */
function prettyStream(colorize: boolean, destination?: DestinationStream): DestinationStream | undefined {
  try {
    const pretty = createRequire(import.meta.url)('pino-pretty') as (options: object) => DestinationStream;
    return pretty({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', ...(destination ? { destination } : { sync: true }) });
  } catch {
    return undefined;
  }
}

/**
 * Log lines with the request id on every request line (Fastify adds `reqId`), secrets redacted:
 * JSON, or pretty as logFormatOf decides (a given destination is not a terminal: JSON unless
 * LOG_FORMAT=pretty). With tracing on, a line logged inside a trace carries its `trace_id` and
 * `span_id`.
 */
export function createLogger(config: LogSettings, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    ...(config.tracing ? { mixin: traceFields } : {}),
    serializers: {
      err: boundedError,
      error: boundedError,
      // Keys and tokens may travel in the query string, also inside parameters that are URLs
      // themselves (a link's percent-encoded `return`): they never reach the log (lib/url-credentials.ts).
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  };
  if (logFormatOf(config, destination ? false : Boolean(process.stdout.isTTY)) === 'pretty') {
    const pretty = prettyStream(!destination && Boolean(process.stdout.isTTY), destination);
    if (pretty) return pino(options, pretty);
    const logger = destination ? pino(options, destination) : pino(options);
    logger.warn('LOG_FORMAT=pretty needs pino-pretty, which is not installed: logging JSON');
    return logger;
  }
  return destination ? pino(options, destination) : pino(options);
}

/** What a log line reads of the driver's failure: the server's message and SQLSTATE. */
interface DriverFailure {
  code?: unknown;
  message?: unknown;
}

/** How much of a failed statement's text a log line keeps. */
const statementChars = 200;

/**
 * An error as a log line carries it, of a bounded size whatever the statement that failed: a
 * failed query (drizzle's error carries the statement's text and every parameter, and repeats both
 * in its message) is logged with the statement's first characters, the number of parameters and the
 * database's SQLSTATE, never the parameters. Other errors as pino logs them.
 */
export function boundedError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  const failed = error as Error & { query?: unknown; params?: unknown; parameters?: unknown; code?: unknown; cause?: unknown };
  if (typeof failed.query !== 'string') return serialized;
  // Drizzle's error holds the driver's in `cause`; the driver's own (a statement sent through the
  // driver directly) holds the statement, its parameters and the SQLSTATE itself.
  const cause = (failed.cause as DriverFailure | undefined) ?? (typeof failed.code === 'string' ? failed : undefined);
  const statement = failed.query.length > statementChars ? `${failed.query.slice(0, statementChars)}…` : failed.query;
  const params = failed.params ?? failed.parameters;
  const parameters = Array.isArray(params) ? params.length : 0;
  const reason = typeof cause?.message === 'string' ? cause.message.slice(0, statementChars) : undefined;
  return {
    type: serialized.type,
    message: `Failed query${reason ? `: ${reason}` : ''}`,
    statement,
    parameters,
    sqlState: typeof cause?.code === 'string' ? cause.code : undefined,
    // The stack without its first line, the message that holds the statement and its parameters.
    stack:
      typeof error.stack === 'string'
        ? error.stack
            .split('\n')
            .filter((line) => line.trimStart().startsWith('at '))
            .slice(0, 20)
            .join('\n')
        : undefined,
  };
}
