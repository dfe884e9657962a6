import { randomBytes } from 'node:crypto';
import { hash, verify, type Options } from '@node-rs/argon2';

/**
 * How passwords are hashed: argon2id at OWASP's recommended minimum (19 MiB of memory, two passes,
 * one lane), which keeps a sign-in around a few tens of milliseconds while making each guess of an
 * offline attacker cost the same memory.
 *
 * `algorithm: 2` is `Algorithm.Argon2id`. The library declares `Algorithm` as a `const enum`, which
 * TypeScript cannot inline under `isolatedModules`, and the native module does not export it at run
 * time, so the value is written out (the tests check that hashes come out as `$argon2id$`).
 */
export const passwordHashing = {
  algorithm: 2,
  version: 1, // `Version.V0x13`, the current argon2 version (`v=19` in the hash)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const satisfies Options;

/** The settings a stored hash must show to count as current (see `needsRehash`). */
const currentSettings = {
  algorithm: 'argon2id',
  version: 19,
  m: passwordHashing.memoryCost,
  t: passwordHashing.timeCost,
  p: passwordHashing.parallelism,
} as const;

export const minPasswordLength = 8;
/** Long enough for any passphrase or manager-generated password, short enough to bound the work. */
export const maxPasswordLength = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, passwordHashing);
}

/**
 * Checks a password against a stored hash. When it matches a hash made with other settings, also
 * returns a fresh hash to store, so stored hashes move to the current settings as members sign in
 * (the only moment the plain password is at hand). Never throws for a malformed or empty hash: it
 * simply does not match.
 */
export async function verifyPassword(stored: string, password: string): Promise<{ ok: boolean; rehash?: string }> {
  let ok: boolean;
  try {
    ok = await verify(stored, password);
  } catch {
    return { ok: false };
  }
  if (!ok) return { ok: false };
  return needsRehash(stored) ? { ok: true, rehash: await hashPassword(password) } : { ok: true };
}

/**
 * Reads the PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`). Anything that does not
 * show exactly the current algorithm, version and costs is rehashed, including argon2i/argon2d
 * hashes, which `verify` accepts too.
 */
function needsRehash(stored: string): boolean {
  const match = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
  if (!match) return true;
  const [, algorithm, version, m, t, p] = match;
  return algorithm !== currentSettings.algorithm || Number(version) !== currentSettings.version || Number(m) !== currentSettings.m || Number(t) !== currentSettings.t || Number(p) !== currentSettings.p;
}

/**
 * Why a new password is refused, or undefined when it is acceptable. Only the length is checked:
 * composition rules push people towards predictable passwords. Length counts characters (code
 * points), so an emoji is one character, not two.
 */
export function passwordProblem(password: string): string | undefined {
  // A code point takes one or two UTF-16 units, so a string this long has more than the maximum
  // characters whatever it holds; this avoids walking a huge string character by character.
  const length = password.length > 2 * maxPasswordLength ? Infinity : [...password].length;
  if (length < minPasswordLength) return `A password needs at least ${minPasswordLength} characters.`;
  if (length > maxPasswordLength) return `A password may have at most ${maxPasswordLength} characters.`;
  return undefined;
}

let decoyHash: Promise<string> | undefined;

/**
 * An unknown address costs the same password check as a known one, so timing does not tell them
 * apart where the answer does not either (uniform sign-in errors: the on-page flow, memberLogin).
 */
export async function checkDecoyPassword(password: string): Promise<void> {
  decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(await decoyHash, password);
}
