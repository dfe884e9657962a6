import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * The secret outside production, when SECRET_KEY is unset: generated once and kept in DATA_DIR
 * (readable by this user only), so tokens encrypted or signed by one run stay valid in the next.
 */
export function withSecretKey(config: Config): Config & { secretKey: string } {
  if (config.secretKey) return { ...config, secretKey: config.secretKey };
  const file = path.join(config.dataDir, 'secret.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return { ...config, secretKey: fs.readFileSync(file, 'utf8').trim() };
}
