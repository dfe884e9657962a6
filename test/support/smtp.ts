import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it, its text decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The decoded text body. */
  text: string;
}

/** Quoted-printable, as nodemailer encodes a text body: soft line breaks and `=XX` escapes. */
function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(headers)?.[1] ?? '';
  const body = rest.join('\n\n');
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding')) ? decodeQuotedPrintable(body) : body;
  return { from, to, raw, subject: header('Subject'), text: text.replace(/\r\n/g, '\n') };
}

/**
 * A real SMTP server for tests (the `smtp-server` package), on a port the system picks (so runs
 * side by side never meet), known once started: no TLS, no
 * authentication, every message kept. `failNext` makes the next message(s) be refused with a
 * temporary error, as a server under load does.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  failNext = 0;
  private readonly server: SMTPServer;
  private port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.failNext > 0) {
            this.failNext -= 1;
            return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          }
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          this.received.push(
            parse(
              Buffer.concat(chunks).toString('utf8'),
              from,
              session.envelope.rcptTo.map((to) => to.address),
            ),
          );
          callback();
        });
      },
    });
  }

  /** The server's address; read after `start`. */
  get url(): string {
    if (!this.port) throw new Error('the SMTP server has not started');
    return `smtp://127.0.0.1:${this.port}`;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The messages to one address. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address.toLowerCase()) || mail.to.includes(address));
  }
}

/** The one link of a message that opens the gateway's pages. */
export function linkIn(mail: ReceivedMail): URL {
  const match = /https?:\/\/\S+\/framework\/flow\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in:\n${mail.text}`);
  return new URL(match[0]);
}
