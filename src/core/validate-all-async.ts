import { AppError } from './errors.js';
import { InputErrors, type InputProblem } from './user-errors.js';

/**
 * validateAll (core/user-errors.ts) for checks that look things up: each check may answer a
 * promise. They run one after the other, in order, even after one fails, so the first problem is
 * the one a validation that stopped at the first would have thrown (REST and the old mutations
 * answer it alone). Checks must not write.
 */
export async function validateAllAsync<T extends Record<string, () => unknown>>(checks: T, pathOf: (key: keyof T & string) => string[]): Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  const values = {} as { [K in keyof T]: Awaited<ReturnType<T[K]>> };
  const problems: InputProblem[] = [];
  for (const key of Object.keys(checks) as (keyof T & string)[]) {
    try {
      values[key] = (await checks[key]()) as Awaited<ReturnType<T[typeof key]>>;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.push(...(error instanceof InputErrors ? error.problems.map((problem) => ({ path: [...pathOf(key), ...problem.path], error: problem.error })) : [{ path: pathOf(key), error }]));
    }
  }
  if (problems.length > 0) throw new InputErrors(problems);
  return values;
}
