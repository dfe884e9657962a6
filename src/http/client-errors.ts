import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { classifyError } from '../core/errors.js';
import { restFailureOf } from '../rest/errors.js';

/**
 * Requests that Node's HTTP parser refuses before Fastify sees them (a URL or headers over the
 * header limit, a malformed request line, a client too slow to send its headers) still answer the
 * documented error body, so a client's error handling has one shape to read. Their status and
 * message are classifyError's (core/errors.ts).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body: envelope } = restFailureOf(classifyError(error, { surface: 'rest', source: 'http-parser' }), '');
    const body = JSON.stringify(envelope);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
