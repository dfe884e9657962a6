import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditActions } from '../../src/modules/audit/audit.actions.js';

/** Every action of the audit log is written by some code: its name appears, quoted, in a source file other than the list itself. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(full);
    return entry.name.endsWith('.ts') && !full.endsWith(path.join('audit', 'audit.actions.ts')) ? [full] : [];
  });
}

describe('the audit actions', () => {
  it('are each recorded somewhere in the code', () => {
    const text = sources(path.resolve('src'))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const unrecorded = Object.keys(auditActions).filter((action) => !text.includes(`'${action}'`));
    expect(unrecorded).toEqual([]);
  });
});
