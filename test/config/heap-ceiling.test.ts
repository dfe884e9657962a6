import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/db/paths.js';
import { heapCeilingAdvice, heapCeilingMb, heapCeilingOption } from '../../src/heap-ceiling.js';

/** The heap ceiling of src/heap-ceiling.ts: set where the gateway is deployed, and told of where it is not. */
describe('the heap ceiling', () => {
  it('is what the container image runs with', () => {
    const dockerfile = fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^\\s*NODE_OPTIONS=${heapCeilingOption} \\\\$`, 'm'));
  });

  it('takes effect through NODE_OPTIONS, under the 2 GB where V8 starts growing the heap 4× its live data', () => {
    const limit = execFileSync(process.execPath, ['-p', "require('node:v8').getHeapStatistics().heap_size_limit / 1048576"], {
      env: { ...process.env, NODE_OPTIONS: heapCeilingOption },
      encoding: 'utf8',
    });
    expect(Number(limit)).toBeGreaterThanOrEqual(heapCeilingMb);
    expect(Number(limit)).toBeLessThan(2048);
    expect(heapCeilingAdvice(Number(limit))).toBeUndefined();
  });

  it('is advised when the process may grow its heap to 2 GB or more', () => {
    expect(heapCeilingAdvice(4144)).toMatch(/may grow to 4144 MB.*NODE_OPTIONS=--max-old-space-size=1536/);
    expect(heapCeilingAdvice(2048)).toBeDefined();
  });
});
