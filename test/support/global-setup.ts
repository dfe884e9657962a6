import { ensureTemplate } from '../../src/db/pglite-template.js';
import { ensureCitusTemplate } from './database.js';

/** Every test database starts from the migrated template; make it once if the install did not. */
export default async function setup(): Promise<void> {
  await ensureTemplate();
  await ensureCitusTemplate();
}
