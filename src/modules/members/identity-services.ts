import pino, { type Logger } from 'pino';
import type { Config } from '../../config.js';
import { createCursorSigner, type CursorSigner } from '../../core/connection.js';
import { budgetAddress } from '../../lib/client-address.js';
import type { Database } from '../../db/client.js';
import { createEmailHasher, type EmailHasher } from '../audit/audit-keys.js';
import { EmailThrottle } from '../email/email-throttle.js';
import { EmailOutbox } from '../email/outbox.js';
import { LoginThrottle } from '../identity/login-throttle.js';
import { NoAccountAnswers } from '../identity/no-account-answers.js';
import { SigningKeys } from '../identity/signing-keys.js';
import { createTokenCipher, type TokenCipher } from '../identity/token-cipher.js';
import type { NetworkAdapter } from '../networks/adapter.js';
import type { Network } from '../networks/networks.js';
import { createNetworkAdapters, networkOptionsFromEnv, type NetworkOptions } from '../networks/registry.js';

/** What the member operations need beyond the database, made once per gateway. */
export interface IdentityServices {
  cipher: TokenCipher;
  signingKeys: SigningKeys;
  throttle: LoginThrottle;
  /** The outbox of verification and password-reset emails, and its worker (started by the gateway). */
  mail: EmailOutbox;
  /** How many of those emails a fan may cause. */
  emailThrottle: EmailThrottle;
  /** How many "no such account" answers the on-page sign-in gives one address (identity/no-account-answers.ts). */
  noAccountAnswers: NoAccountAnswers;
  networks: Map<Network, NetworkAdapter>;
  /**
   * The key of a client address's budgets (sign-in failures, emails): an IPv6 address counts by
   * its IPV6_PREFIX_LENGTH prefix (lib/client-address.ts, budgetAddress).
   */
  budgetAddress(address: string): string;
  /** The audit log's keyed hash of an address (an erasure's `details.emailHmac`; audit/audit-keys.ts). */
  emailHmac: EmailHasher;
  /** Signs the keyset cursors of the activity feed and of Member.activities (core/connection.ts). */
  cursorSigner: CursorSigner;
  close(): Promise<void>;
}

export async function createIdentityServices(db: Database, config: Config, options: { networks?: NetworkOptions; log?: Logger } = {}): Promise<IdentityServices> {
  if (!config.secretKey) throw new Error('SECRET_KEY is required to seal network tokens and sign member tokens.');
  const cipher = createTokenCipher(config.secretKey);
  const signingKeys = await SigningKeys.load(db, cipher, { issuer: config.publicUrl ?? 'marquee' });
  const throttle = await LoginThrottle.create({ redisUrl: config.redisUrl, log: options.log });
  const networks = createNetworkAdapters(options.networks ?? networkOptionsFromEnv(process.env));
  const mail = new EmailOutbox(db, options.log ?? pino({ level: 'silent' }), config.mail, config.env);
  const emailThrottle = await EmailThrottle.create({ redisUrl: config.redisUrl, log: options.log });
  const noAccountAnswers = await NoAccountAnswers.create({ redisUrl: config.redisUrl, log: options.log });
  return {
    cipher,
    signingKeys,
    throttle,
    mail,
    emailThrottle,
    noAccountAnswers,
    networks,
    budgetAddress: (address) => budgetAddress(address, config.ipv6PrefixLength),
    emailHmac: createEmailHasher(config.secretKey),
    cursorSigner: createCursorSigner(config.secretKey),
    close: async () => {
      await mail.stop();
      await Promise.all([throttle.close(), emailThrottle.close(), noAccountAnswers.close()]);
    },
  };
}
