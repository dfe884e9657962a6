import { readFileSync } from 'node:fs';

/**
 * The running release (semver), from package.json: one level above both src/ and the bundle in
 * dist/, and shipped beside dist/ in the image. CHANGELOG.md says what each release changed.
 */
export const version: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
