import v8 from 'node:v8';

/**
 * The V8 heap ceiling the gateway runs with: the container image sets it (NODE_OPTIONS in the
 * Dockerfile), and the benchmark and the process tests start the gateway with it.
 *
 * Why a ceiling, and why under 2 GB: after each full collection V8 lets the heap grow to a multiple
 * of what survived before collecting again, and that multiple is up to 4 when the ceiling is 2 GB or
 * more (Node picks 4,144 MB by itself on a 24 GB machine), but at most 1.3 to 2 below it
 * (v8/src/heap/heap-controller.cc, MaxGrowingFactor). Under a flood of large pages the gateway's
 * live heap stays near 70 MB, yet its resident memory grew by 248 to 452 MB with Node's ceiling,
 * against 84 to 131 MB with this one (docs/operations.md, Memory).
 */
export const heapCeilingMb = 1536;

/** The Node option that sets it. */
export const heapCeilingOption = `--max-old-space-size=${heapCeilingMb}`;

/** At or above this ceiling, V8 allows the heap to grow to 4× its live size between collections. */
const greedyCeilingMb = 2048;

/** What to tell the operator when this process's ceiling lets the heap grow greedily; undefined when it does not. */
export function heapCeilingAdvice(limitMb = v8.getHeapStatistics().heap_size_limit / 1024 / 1024): string | undefined {
  if (limitMb < greedyCeilingMb) return undefined;
  return `the JavaScript heap may grow to ${Math.round(limitMb)} MB, and V8 lets it reach 4× the live data between collections at such a ceiling; run with NODE_OPTIONS=${heapCeilingOption} (docs/operations.md, Memory)`;
}
