import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './db/paths.js';

/**
 * The running release (semver), from the project's package.json: found from the project's root,
 * whether the code runs from src/, from the bundle in dist/ (shipped beside package.json in the
 * image) or from a bundle elsewhere in the project. CHANGELOG.md says what each release changed.
 */
export const version: string = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
