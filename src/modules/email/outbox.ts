import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Database, Executor } from '../../db/client.js';
import { databaseUnavailable } from '../../db/errors.js';
import { outsideRequest } from '../../db/roundtrips.js';
import { PeriodicPass } from '../../lib/periodic-pass.js';
import { accountsWithDueMail, claimDueMessages, deleteFinishedMessages, insertOutboxMessage, markAttemptFailed, markSent, type NewOutboxRow, type OutboxRow } from './outbox.queries.js';
import { logTransport, smtpTransport, type MailTransport } from './transport.js';

/** Attempts per message before it is given up: with the delays below, about a quarter of an hour of trying. */
export const maxAttempts = 6;
/** How long a claimed message is left to the worker sending it before another may take it. */
export const leaseMs = 2 * 60_000;
/** Messages an account sends per claim: the others wait for the next claim, so one account cannot hold the worker. */
const claimSize = 10;

/** The delay before attempt `attempt + 1`: 30 s, doubling, at most an hour. */
export function retryDelayMs(attempt: number): number {
  return Math.min(30_000 * 2 ** Math.min(attempt - 1, 20), 3600_000);
}

export type QueuedMail = Omit<NewOutboxRow, 'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'lastError' | 'sentAt' | 'createdAt'>;

/**
 * The emails of the platform: queued in a table by the request that causes them (in its
 * transaction when it has one), sent by a worker in the background with retries, so a slow or
 * unavailable SMTP server never slows or fails a request. Passes run from a timer and when a
 * message is queued; accounts are served one after another, each claim held to one account.
 *
 * Without SMTP_URL, outside production, messages are printed to the log (transport.ts); in
 * production they are given up at once, their bodies dropped, with a warning at start.
 */
export class EmailOutbox {
  private readonly passes: PeriodicPass<number>;
  private readonly transport: MailTransport | undefined;
  /** Work started by `later` and not finished yet. */
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    mail: Config['mail'],
    env: Config['env'],
    pollMs = 10_000,
  ) {
    this.transport = mail.smtpUrl ? smtpTransport(mail.smtpUrl, mail.from) : env === 'production' ? undefined : logTransport(log);
    if (!this.transport) log.warn('SMTP_URL is not set: verification and password-reset emails are not sent');
    this.passes = new PeriodicPass({ name: 'email outbox', everyMs: pollMs, log, meanwhile: 'emails wait in the outbox', pass: () => this.sendDue() });
  }

  start(): void {
    this.passes.start();
  }

  async stop(): Promise<void> {
    await this.passes.stop();
    this.transport?.close();
  }

  /** Queues a message, through `db` (a transaction's, so it is queued only if the change commits). */
  async enqueue(db: Executor, mail: QueuedMail, now = new Date()): Promise<OutboxRow> {
    await deleteFinishedMessages(db, mail.accountId, new Date(now.getTime() - 7 * 24 * 3600_000));
    return insertOutboxMessage(db, { ...mail, createdAt: now, nextAttemptAt: now });
  }

  /** Wakes the worker (after the queuing transaction has committed). */
  wake(): void {
    setImmediate(() => this.passes.tick());
  }

  /**
   * Runs `work` after the request that asked for it has been answered, so that how long the answer
   * took tells the asker nothing about what the work found (a reset for an unknown address does
   * nothing, for a known one it writes). Its failure is logged; `drain` waits for it.
   */
  later(work: () => Promise<void>): void {
    const task: Promise<void> = outsideRequest(() => new Promise<void>((resolve) => setImmediate(resolve)).then(work))
      .catch((error: unknown) => this.log.error({ err: error }, 'email request failed'))
      .finally(() => this.background.delete(task));
    this.background.add(task);
  }

  /** Finishes the work started by `later`, then sends what is due now (concurrent calls share one pass). Answers the messages sent. */
  async drain(): Promise<number> {
    await Promise.all([...this.background]);
    // A pass that starts after this call (PeriodicPass.run), so it sees every message due by now.
    return this.passes.run();
  }

  private async sendDue(): Promise<number> {
    let sent = 0;
    for (const accountId of await accountsWithDueMail(this.db, new Date())) {
      for (;;) {
        if (this.passes.stopped) return sent;
        const claimed = await claimDueMessages(this.db, accountId, new Date(), leaseMs, claimSize);
        for (const message of claimed) if (await this.deliver(message)) sent += 1;
        if (claimed.length < claimSize) break;
      }
    }
    return sent;
  }

  private async deliver(message: OutboxRow): Promise<boolean> {
    const context = { outboxId: message.id, accountId: message.accountId, kind: message.kind, attempt: message.attempts };
    if (!this.transport) {
      await markAttemptFailed(this.db, message, 'SMTP_URL is not set', undefined);
      return false;
    }
    try {
      await this.transport.send({ to: message.recipient, senderName: message.senderName, subject: message.subject, body: message.body, kind: message.kind });
    } catch (error) {
      const retryAt = message.attempts < maxAttempts ? new Date(Date.now() + retryDelayMs(message.attempts)) : undefined;
      this.log.warn({ ...context, err: error, retryAt }, retryAt ? 'email not sent; will retry' : 'email not sent; giving up');
      await markAttemptFailed(this.db, message, String((error as Error).message ?? error).slice(0, 500), retryAt);
      return false;
    }
    // Sent, but the database is gone before it is recorded: the message goes again when its lease ends.
    await markSent(this.db, message, new Date()).catch((error: unknown) => {
      if (!databaseUnavailable(error)) throw error;
      this.log.warn({ ...context, err: error }, 'email sent, but not recorded as sent; it may be sent again');
    });
    this.log.info(context, 'email sent');
    return true;
  }
}
