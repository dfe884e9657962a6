import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { encodeOnce, preferredEncoding, type Encoding } from '../compression.js';
import { projectRoot } from '../../db/paths.js';

/** Where scripts/build-pages.mjs writes the pages' bundles (made by `npm install` and `npm start`). */
export const pagesDir = path.join(projectRoot, 'dist', 'pages');

const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

interface Asset {
  mtimeMs: number;
  body: Buffer;
  etag: string;
  /** The body compressed, once per encoding asked for, while the file stays the same. */
  encoded: Map<Encoding, Promise<Buffer>>;
}

// Read once and kept while the file stays the same (a rebuild replaces it by rename).
const cache = new Map<string, Asset>();

function readAsset(name: string): Asset | undefined {
  const file = path.join(pagesDir, name);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const cached = cache.get(name);
  if (cached && cached.mtimeMs === stat.mtimeMs) return cached;
  const body = fs.readFileSync(file);
  const asset = { mtimeMs: stat.mtimeMs, body, encoded: new Map(), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  cache.set(name, asset);
  return asset;
}

/**
 * GET /assets/<bundle>.js|css: the pages' bundles, nothing else from the folder. Revalidated on
 * each load (no-cache with an ETag), so a rebuilt bundle is picked up at once.
 */
export function registerAssets(app: FastifyInstance, bundles: string[]): void {
  const allowed = new Set(bundles.flatMap((bundle) => [`${bundle}.js`, `${bundle}.css`]));
  app.get<{ Params: { file: string } }>('/assets/:file', { config: { kind: 'plain' } }, async (request, reply) => {
    const { file } = request.params;
    if (!allowed.has(file)) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
    const asset = readAsset(file);
    if (!asset) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The pages are not built: run `npm run build` (npm install and npm start do it).');
    }
    reply.header('cache-control', 'no-cache').header('etag', asset.etag).header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    reply.type(types[path.extname(file)]).header('vary', 'Accept-Encoding');
    // Compressed once and kept: the explorer's bundle is 1.5 MB, too much to compress on every load.
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    if (!encoding) return reply.send(asset.body);
    return reply.header('content-encoding', encoding).send(await encodeOnce(asset.encoded, encoding, asset.body));
  });
}
