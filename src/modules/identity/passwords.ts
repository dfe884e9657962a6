import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id with OWASP's recommended minimum: 19 MiB, two passes, one lane. (`algorithm: 2` is the
 * library's `Algorithm.Argon2id`, a const enum that isolated modules cannot read.)
 */
export const passwordHashing = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, passwordHashing);
}

/**
 * Checks a password; when it matches a hash made with older parameters, also returns a new hash
 * to store, so hashes follow the parameters as members sign in. A malformed hash never matches.
 */
export async function verifyPassword(stored: string, password: string): Promise<{ ok: boolean; rehash?: string }> {
  let ok = false;
  try {
    ok = await verify(stored, password);
  } catch {
    return { ok: false };
  }
  if (!ok) return { ok };
  return outdated(stored) ? { ok, rehash: await hashPassword(password) } : { ok };
}

function outdated(stored: string): boolean {
  const match = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
  if (!match) return true;
  const [, m, t, p] = match.map(Number);
  return m !== passwordHashing.memoryCost || t !== passwordHashing.timeCost || p !== passwordHashing.parallelism;
}

/** Why a new password is refused, or undefined. Length only: composition rules push people to worse passwords. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return 'a password needs at least 8 characters';
  if (password.length > 1024) return 'a password has at most 1024 characters';
  return undefined;
}
