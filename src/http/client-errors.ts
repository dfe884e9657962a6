import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../rest/errors.js';

/**
 * Requests that Node's HTTP parser refuses before Fastify sees them (a URL or headers over the
 * header limit, a malformed request line, a client too slow to send its headers) still answer the
 * documented error body, so a client's error handling has one shape to read.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = describe(error.code);
  if (socket.writable) {
    const body = JSON.stringify(errorBody('INVALID_PARAMETER', message, null));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function describe(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: 'The URL or the headers are too long: send long parameters in a POST body instead.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request was not sent in time.' };
  return { status: 400, message: 'The request could not be read as HTTP.' };
}
