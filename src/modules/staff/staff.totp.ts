import { randomBytes } from 'node:crypto';
import { base32 } from '@otplib/plugin-base32-scure';
import { crypto } from '@otplib/plugin-crypto-node';
import { verify } from '@otplib/totp';
import { renderSVG } from 'uqr';

/**
 * The console's second factor: TOTP (RFC 6238) as every authenticator app speaks it (SHA-1, six
 * digits, 30-second steps), through otplib on node:crypto. A code is accepted within one step either
 * side of now (clocks drift), and only once: the step it matched is kept (`totp_last_step`) and any
 * code of that step or an earlier one is refused from then on.
 */
export const totpSettings = { digits: 6, period: 30, toleranceSeconds: 30 } as const;

/** 160 random bits, base32 (RFC 4226's recommended length), as authenticator apps take it. */
export function newTotpSecret(): string {
  return base32.encode(randomBytes(20), { padding: false });
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, issuer: string, accountName: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(totpSettings.digits), period: String(totpSettings.period) });
  return `otpauth://totp/${label}?${params}`;
}

/** The URI as a QR code: an SVG image in a `data:` URL (the console's page policy allows data images). */
export function qrSvgDataUrl(uri: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(renderSVG(uri, { border: 2 })).toString('base64')}`;
}

const codeForm = /^\d{6}$/;

/**
 * The time step a code matched, when it is right for the secret and later than `afterStep` (the
 * last step accepted); undefined otherwise, including for anything not six digits.
 */
export async function matchedStep(secret: string, code: string, afterStep: number | null, epochSeconds = Date.now() / 1000): Promise<number | undefined> {
  if (!codeForm.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    crypto,
    base32,
    epoch: epochSeconds,
    epochTolerance: totpSettings.toleranceSeconds,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid ? result.timeStep : undefined;
}
