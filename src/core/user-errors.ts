import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { AppError, type ErrorCode } from './errors.js';

/**
 * Errors as data (docs/graphql.md): a mutation a front end calls answers a payload with its result
 * and `userErrors`, every problem with the input at once, each with the input path at fault, so a
 * form can show them beside their fields. Top-level `errors` stay for what no input of the form
 * could fix: the request's own key or token, the plan, limits and outages.
 */
export enum UserErrorCode {
  REQUIRED = 'REQUIRED',
  INVALID = 'INVALID',
  NOT_FOUND = 'NOT_FOUND',
  TAKEN = 'TAKEN',
  EMAIL_IN_USE = 'EMAIL_IN_USE',
  NO_ACCOUNT = 'NO_ACCOUNT',
  WRONG_PASSWORD = 'WRONG_PASSWORD',
  DOMAIN_NOT_ALLOWED = 'DOMAIN_NOT_ALLOWED',
}
registerEnumType(UserErrorCode, {
  name: 'UserErrorCode',
  description: 'What is wrong with an input value (UserError.code).',
  valuesConfig: {
    REQUIRED: { description: 'A value is needed here.' },
    INVALID: { description: 'The value is not acceptable: its form, its range or its length (the message says which).' },
    NOT_FOUND: { description: 'The value names something the account does not have (a member, a brand, a segment, an activity).' },
    TAKEN: { description: 'Another member or object of the account has this value already (an address, a name, an identity).' },
    EMAIL_IN_USE: { description: 'The address belongs to another member of the account: sign in to that member instead.' },
    NO_ACCOUNT: { description: 'No member signs in with this identity (only where the application shows distinct sign-in errors).' },
    WRONG_PASSWORD: { description: 'The password does not match (also for an unknown address where the application shows uniform sign-in errors).' },
    DOMAIN_NOT_ALLOWED: { description: "The website is not on the application's whitelist." },
  },
});

@ObjectType('UserError', { description: 'One problem with the input of a mutation: where it is, what kind, and a sentence for the person filling the form.' })
export class UserError {
  @Field(() => [String], {
    nullable: true,
    description: 'The path of the input value at fault, from the argument down: ["input", "birthDate"]. Null when the problem is the input as a whole.',
  })
  field!: string[] | null;
  @Field(() => UserErrorCode, { description: 'The kind of problem, for code to branch on.' }) code!: UserErrorCode;
  @Field(() => String, { description: 'What is wrong, in a sentence for the person filling the form.' }) message!: string;
}

/** The catalogue's codes a payload answers as user errors, and their UserErrorCode; any other error stays a top-level error. */
const userErrorCodes: Partial<Record<ErrorCode, UserErrorCode>> = {
  MISSING_PARAMETER: UserErrorCode.REQUIRED,
  INVALID_PARAMETER: UserErrorCode.INVALID,
  NOT_FOUND: UserErrorCode.NOT_FOUND,
  CONFLICT: UserErrorCode.TAKEN,
  EMAIL_IN_USE: UserErrorCode.EMAIL_IN_USE,
  NO_ACCOUNT: UserErrorCode.NO_ACCOUNT,
  WRONG_PASSWORD: UserErrorCode.WRONG_PASSWORD,
  DOMAIN_NOT_WHITELISTED: UserErrorCode.DOMAIN_NOT_ALLOWED,
};

/** One input problem found by validateAll: the AppError a single check threw, and the input path it checked. */
export interface InputProblem {
  path: string[];
  error: AppError;
}

/**
 * Several input problems at once. It is the first problem's AppError as well (same code, message
 * and parameter), so callers that report one error (REST's error body, the old mutations) answer
 * exactly what they answered when validation stopped at the first.
 */
export class InputErrors extends AppError {
  constructor(readonly problems: readonly InputProblem[]) {
    const [first] = problems;
    super(first.error.extensions.code, first.error.message, first.error.extensions.param);
    this.name = 'InputErrors';
  }
}

/**
 * Runs every check, in order, even after one fails, and answers their values; when any threw an
 * AppError, throws InputErrors with all of them (each under its input path). Checks must not
 * write: a payload's mutation writes only once its whole input passed.
 */
export function validateAll<T extends Record<string, () => unknown>>(checks: T, pathOf: (key: keyof T & string) => string[]): { [K in keyof T]: ReturnType<T[K]> } {
  const values = {} as { [K in keyof T]: ReturnType<T[K]> };
  const problems: InputProblem[] = [];
  for (const key of Object.keys(checks) as (keyof T & string)[]) {
    try {
      values[key] = checks[key]() as ReturnType<T[typeof key]>;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.push(...(error instanceof InputErrors ? error.problems.map((problem) => ({ path: [...pathOf(key), ...problem.path], error: problem.error })) : [{ path: pathOf(key), error }]));
    }
  }
  if (problems.length > 0) throw new InputErrors(problems);
  return values;
}

/**
 * validateAll for checks that read the database (a member, a brand, a segment named by the input):
 * they run at once, and every one that throws an AppError is reported under its input path. Like
 * validateAll's, the checks must not write.
 */
export async function validateAllAsync<T extends Record<string, () => Promise<unknown>>>(checks: T, pathOf: (key: keyof T & string) => string[]): Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  const keys = Object.keys(checks) as (keyof T & string)[];
  const settled = await Promise.allSettled(keys.map((key) => checks[key]()));
  const values = {} as { [K in keyof T]: Awaited<ReturnType<T[K]>> };
  const problems: InputProblem[] = [];
  settled.forEach((outcome, index) => {
    const key = keys[index];
    if (outcome.status === 'fulfilled') {
      values[key] = outcome.value as Awaited<ReturnType<T[typeof key]>>;
      return;
    }
    const error: unknown = outcome.reason;
    if (!(error instanceof AppError)) throw error;
    problems.push(...(error instanceof InputErrors ? error.problems.map((problem) => ({ path: [...pathOf(key), ...problem.path], error: problem.error })) : [{ path: pathOf(key), error }]));
  });
  if (problems.length > 0) throw new InputErrors(problems);
  return values;
}

/**
 * Where an error's parameter sits in a mutation's input: the AppError's `param` (a GraphQL argument
 * or a REST parameter name, as services name them) to its input path. Unlisted parameters map to
 * `fallback` (null: the input as a whole).
 */
export interface InputPaths {
  params?: Record<string, string[]>;
  fallback?: string[] | null;
}

/**
 * The user errors an error thrown by a mutation's work stands for, or undefined when it is not
 * about the input (credentials, plan, limits, outages, bugs): the caller rethrows those, so they
 * stay top-level errors.
 */
export function userErrorsOf(error: unknown, paths: InputPaths = {}): UserError[] | undefined {
  if (!(error instanceof AppError)) return undefined;
  if (error instanceof InputErrors) {
    const all = error.problems.map((problem) => toUserError(problem.error, problem.path.length > 0 ? problem.path : placed(problem.error, paths)));
    return all.every((item) => item !== undefined) ? all : undefined;
  }
  const one = toUserError(error, placed(error, paths));
  return one ? [one] : undefined;
}

function placed(error: AppError, paths: InputPaths): string[] | null {
  const param = error.extensions.param;
  return (param !== null ? paths.params?.[param] : undefined) ?? paths.fallback ?? null;
}

function toUserError(error: AppError, field: string[] | null): UserError | undefined {
  const code = userErrorCodes[error.extensions.code];
  return code === undefined ? undefined : { field, code, message: error.message };
}

/**
 * Runs a payload mutation's work: its result with no user errors, or, when the work threw an error
 * about the input, no result and the user errors (nothing was written: the work validates before it
 * writes, and its transaction rolls back). Any other error is rethrown, a top-level error.
 */
export async function withUserErrors<T>(work: () => Promise<T>, paths: InputPaths = {}): Promise<{ result: T | null; userErrors: UserError[] }> {
  try {
    return { result: await work(), userErrors: [] };
  } catch (error) {
    const userErrors = userErrorsOf(error, paths);
    if (!userErrors) throw topLevelOf(error);
    return { result: null, userErrors };
  }
}

/**
 * The error a payload mutation answers at the top level: among input problems, the first that no
 * input could fix (a plan refusal, a limit), found beside field errors by validateAll; else the error.
 */
function topLevelOf(error: unknown): unknown {
  if (!(error instanceof InputErrors)) return error;
  return error.problems.find((problem) => userErrorCodes[problem.error.extensions.code] === undefined)?.error ?? error;
}
