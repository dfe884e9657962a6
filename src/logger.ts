import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/** JSON logs with the request id on every request line (Fastify adds `reqId`); secrets redacted. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
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
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Parameters whose values are secrets, by their lower-case names (parameters match in any case). */
const secretParameters = new Set(['apikey', 'accesstoken', 'password', 'authtoken', 'authsecret', 'token']);

/**
 * The URL with the values of secret parameters replaced. Names are decoded first, as the query
 * parser decodes them before the parameters are read (`api%4Bey` is read as `apiKey`), so a name
 * spelt in percent-escapes is redacted like the plain one.
 */
export function redactQuery(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const split = pair.indexOf('=');
    const name = split < 0 ? pair : pair.slice(0, split);
    return split >= 0 && secretParameters.has(decodedName(name).toLowerCase()) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

function decodedName(name: string): string {
  const spaced = name.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape: the parser keeps such names as they are, and so does this.
    return spaced;
  }
}
