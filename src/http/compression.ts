import { promisify } from 'node:util';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Answers above `thresholdBytes` are compressed (brotli, else gzip) for clients that ask with
 * Accept-Encoding: the explorer's bundle (about 1.5 MB) and the OpenAPI document most of all, and
 * large GraphQL and REST answers. Small answers are sent as they are: compressing them costs more
 * than it saves.
 *
 * Not compressed: the hosted sign-in pages and the widget's endpoints (`/framework/…`), and the staff
 * console (`/console…`), whose answers carry a CSRF token, a member's profile or a fan's data beside what the visitor sent, which compressed over TLS
 * could be guessed a byte at a time (BREACH). The API routes read no cookie, so an attacker's page
 * cannot make a browser send them with the victim's credentials. Request bodies are read as sent
 * (no Content-Encoding): decompressing them would let a small upload cost a large parse.
 */
export async function registerCompression(app: FastifyInstance, thresholdBytes = 1024): Promise<void> {
  // Runs before the plugin's own onRoute hook, which reads these per-route settings.
  app.addHook('onRoute', (route) => {
    route.decompress = false;
    if (route.url.startsWith('/framework') || route.url.startsWith('/console')) route.compress = false;
  });
  await app.register(compress, { threshold: thresholdBytes, encodings: ['br', 'gzip'] });
}

export type Encoding = 'br' | 'gzip';

/** The encoding to answer a request's Accept-Encoding with: brotli when taken, else gzip, else none (`q=0` refuses one). */
export function preferredEncoding(acceptEncoding: string | string[] | undefined): Encoding | undefined {
  if (typeof acceptEncoding !== 'string') return undefined;
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.slice(0, 512).split(',')) {
    const [name, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    weights.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const accepts = (name: Encoding) => (weights.get(name) ?? weights.get('*') ?? 0) > 0;
  return accepts('br') ? 'br' : accepts('gzip') ? 'gzip' : undefined;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * A static body compressed once per encoding and kept in `cache` (off the event loop, in zlib's
 * threads). Brotli at quality 6: a tenth smaller than gzip on the explorer's bundle for about twice
 * gzip's time, paid once per bundle.
 */
export function encodeOnce(cache: Map<Encoding, Promise<Buffer>>, encoding: Encoding, body: Buffer): Promise<Buffer> {
  let encoded = cache.get(encoding);
  if (!encoded) {
    encoded = encoding === 'br' ? brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }) : gzip(body, { level: 9 });
    cache.set(encoding, encoded);
  }
  return encoded;
}
