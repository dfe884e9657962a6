import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** JSON logs with the request id on every request line (Fastify adds `reqId`); secrets redacted. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    serializers: {
      // Keys and tokens may travel in the query string: they never reach the log.
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        url: redactQuery(request.url),
        remoteAddress: request.ip,
      }),
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  });
}

const secretParameters = /([?&](?:apikey|accesstoken|password|authtoken|authsecret|token)=)[^&]*/gi;

export function redactQuery(url: string): string {
  return url.replace(secretParameters, '$1[redacted]');
}
