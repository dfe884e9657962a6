import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bundleGateway, startGatewayProcess } from '../support/gateway-process.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { freePort } from '../support/pg-cluster.js';

/**
 * The gateway as `npm start` runs it (the bundle of src/main.ts, in a process of its own), switched
 * on by OTEL_EXPORTER_OTLP_ENDPOINT alone, exporting to a receiver in this test that accepts what an
 * OpenTelemetry collector accepts on `POST /v1/traces` (OTLP over HTTP, protobuf). Always on the
 * embedded database: what is checked is the export, not the driver.
 */
interface Export {
  contentType: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const received: Export[] = [];
let receiver: http.Server;
let gateway: Awaited<ReturnType<typeof startGatewayProcess>> | undefined;
let base: string;
let apiKey: string;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        received.push({ contentType: request.headers['content-type'], headers: request.headers, body: Buffer.concat(chunks) });
        // An empty ExportTraceServiceResponse: everything accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const dataDir = temporaryDirectory('otlp');
  const port = await freePort();
  const script = await bundleGateway('otlp');
  gateway = await startGatewayProcess(script, port, {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    DEMO_ACCOUNT: '1',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cr3t%20token',
    OTEL_SERVICE_NAME: 'marquee-otlp-test',
  });
  base = `http://127.0.0.1:${port}`;
  apiKey = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-key.json'), 'utf8')) as { apiKey: string }).apiKey;
}, 120_000);

afterAll(async () => {
  gateway?.kill('SIGKILL');
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('export over OTLP', () => {
  it('posts the spans of a request to /v1/traces as protobuf, the caller’s trace continued', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${base}/v1.1/app/info?apiKey=${apiKey}`, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    expect(response.status).toBe(200);
    // The batch leaves within the processor's delay (5 s by default).
    const body = await vi.waitFor(
      () => {
        const all = Buffer.concat(received.map((entry) => entry.body));
        if (!all.includes(Buffer.from('GET /v1.1/app/info'))) throw new Error('not exported yet');
        return all;
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(received[0].contentType).toBe('application/x-protobuf');
    expect(received[0].headers['x-collector-token']).toBe('s3cr3t token');
    // The strings and ids of the spans, as protobuf carries them.
    expect(body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from('marquee-otlp-test'))).toBe(true);
    expect(body.includes(Buffer.from('db.query.text'))).toBe(true);
    expect(body.includes(Buffer.from('postgresql'))).toBe(true);
    expect(body.includes(Buffer.from('graphql.operation.type'))).toBe(true);
    // The key travelled in the query string: it is in no span.
    expect(body.includes(Buffer.from(apiKey))).toBe(false);
  });
});
