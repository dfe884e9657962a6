import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/** One message as the worker hands it to a transport. */
export interface OutgoingMail {
  to: string;
  senderName: string | null;
  subject: string;
  body: string;
  kind: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Delivery through an SMTP server (nodemailer), from the deployment's sender address under the
 * application's sender name. The timeouts keep one slow server from holding the worker longer than
 * a message's lease (outbox.ts).
 */
export function smtpTransport(smtpUrl: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(mail) {
      await transporter.sendMail({
        from: mail.senderName ? { name: mail.senderName, address: from } : from,
        to: mail.to,
        subject: mail.subject,
        text: mail.body,
      });
    },
    close: () => transporter.close(),
  };
}

/**
 * Development without SMTP_URL: each message, its link included, is printed to the log, so a
 * developer can follow it. Never used in production, where the log must not hold live links.
 */
export function logTransport(log: Logger): MailTransport {
  return {
    async send(mail) {
      log.info({ to: mail.to, kind: mail.kind, subject: mail.subject }, `email not sent (SMTP_URL is not set); its text:\n${mail.body}`);
    },
    close: () => {},
  };
}
