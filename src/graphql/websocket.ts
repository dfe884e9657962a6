import type { IncomingMessage } from 'node:http';
import { CloseCode, makeServer, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';

/** What graphql-ws's hooks see of a connection, besides what onConnect stores on it. */
export interface SocketExtra {
  socket: WebSocket;
  request: IncomingMessage;
}

/** WebSocket's "Try Again Later": a subscriber that fell behind may reconnect (graphql-ws's client does). */
export const slowReaderCloseCode = 1013;

/** A peer that answers no ping within this long is cut off (graphql-ws's own default). */
const keepAliveMs = 12_000;

/**
 * graphql-ws served over `ws`, as graphql-ws's own `useServer` does, with the socket's send buffer
 * bounded. graphql-ws's adapter waits for each message to be written before it reads the next
 * record, so a client that stops reading left every later record queued in the gateway, out of
 * sight of the socket's `bufferedAmount`. Here a message goes straight to the socket, and once more
 * than `maxBufferedBytes` wait to be written the connection is closed (1013, with a reason; logged
 * once) and its subscriptions are ended at once rather than after the closing handshake, which a
 * client that does not read never answers (ws gives it 30 s before destroying the socket).
 */
export function serveGraphqlWs<E extends Record<PropertyKey, unknown>>(
  wss: WebSocketServer,
  options: ServerOptions<Record<string, unknown> | undefined, E & SocketExtra>,
  settings: { maxBufferedBytes: number; log: Logger; isProd: boolean },
): { dispose(): Promise<void> } {
  const server = makeServer(options);
  const internalError = (error: unknown) => (settings.isProd ? 'Internal server error' : String(error instanceof Error ? error.message : error).slice(0, 120));

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    let ended = false;
    let pongWait: NodeJS.Timeout | undefined;
    const pings = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), keepAliveMs);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, keepAliveMs);

    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: async (data) => {
          if (ended || socket.readyState !== socket.OPEN) return;
          // Not awaited: a write failure surfaces as the socket's error and close.
          socket.send(data);
          if (socket.bufferedAmount > settings.maxBufferedBytes) {
            const reason = `The subscriber fell behind: more than ${settings.maxBufferedBytes} bytes unsent; reconnect and read faster.`;
            settings.log.warn({ address: request.socket.remoteAddress, buffered: socket.bufferedAmount }, 'WebSocket closed: its reader fell behind');
            socket.close(slowReaderCloseCode, reason);
            void end(slowReaderCloseCode, reason);
          }
        },
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) => {
          // A message arrives as one Buffer: the socket keeps ws's default binaryType ('nodebuffer').
          const receive = async (message: Buffer) => {
            // Once ended, a subscription started now would never be returned.
            if (ended) return;
            try {
              await handle(message.toString());
            } catch (error) {
              settings.log.error({ err: error }, 'graphql-ws message handling failed');
              socket.close(CloseCode.InternalServerError, internalError(error));
            }
          };
          // Not awaited: receive answers its own failures (logged, the socket closed).
          socket.on('message', (message) => void receive(message as Buffer));
        },
      },
      { socket, request } as E & SocketExtra,
    );

    /** Returns every subscription's iterator and runs onClose, once, whichever comes first: the overflow or the close. */
    async function end(code: number, reason: string) {
      if (ended) return;
      ended = true;
      clearInterval(pings);
      clearTimeout(pongWait);
      await closed(code, reason);
    }

    socket.once('error', (error) => {
      settings.log.warn({ err: error }, 'WebSocket error');
      socket.close(CloseCode.InternalServerError, internalError(error));
    });
    socket.once('close', (code, reason) => void end(code, String(reason)));
  });

  return {
    async dispose() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
