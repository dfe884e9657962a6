import { describe, expect, it } from 'vitest';
import { AppError, invalidParameter, missingParameter } from '../../src/core/errors.js';
import { InputErrors, UserErrorCode, userErrorsOf, validateAll, withUserErrors } from '../../src/core/user-errors.js';

describe('validateAll', () => {
  it('answers every value when every check passes', () => {
    expect(validateAll({ a: () => 1, b: () => 'x' }, (key) => ['input', key])).toEqual({ a: 1, b: 'x' });
  });

  it('runs every check and throws all problems, the first one as the error itself', () => {
    const ran: string[] = [];
    const check = (key: string, fail: boolean) => () => {
      ran.push(key);
      if (fail) throw invalidParameter(key, 'bad');
      return key;
    };
    let thrown: unknown;
    try {
      validateAll({ a: check('a', false), b: check('b', true), c: check('c', true) }, (key) => ['input', key]);
    } catch (error) {
      thrown = error;
    }
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(thrown).toBeInstanceOf(InputErrors);
    const errors = thrown as InputErrors;
    expect(errors.extensions.code).toBe('INVALID_PARAMETER');
    expect(errors.extensions.param).toBe('b');
    expect(errors.problems.map((problem) => problem.path)).toEqual([
      ['input', 'b'],
      ['input', 'c'],
    ]);
  });

  it('nests the paths of a check that itself validated several values', () => {
    const missingCity = () => {
      throw missingParameter('city');
    };
    const inner = () => validateAll({ city: missingCity }, (key) => [key]);
    expect(() => validateAll({ profile: inner }, (key) => ['input', key])).toThrow(InputErrors);
    expect(userErrorsOf(catchOf(() => validateAll({ profile: inner }, (key) => ['input', key])))).toEqual([
      { field: ['input', 'profile', 'city'], code: UserErrorCode.REQUIRED, message: "The parameter 'city' is required." },
    ]);
  });

  it('lets errors that are not AppErrors through at once', () => {
    expect(() =>
      validateAll(
        {
          a: () => {
            throw new TypeError('bug');
          },
        },
        (key) => [key],
      ),
    ).toThrow(TypeError);
  });
});

describe('userErrorsOf', () => {
  it('places an error by its parameter, or at the fallback', () => {
    const paths = { params: { birthdate: ['input', 'birthDate'] }, fallback: ['input'] };
    expect(userErrorsOf(invalidParameter('birthdate', 'a date'), paths)).toEqual([{ field: ['input', 'birthDate'], code: UserErrorCode.INVALID, message: "The parameter 'birthdate' is invalid: a date." }]);
    expect(userErrorsOf(new AppError('CONFLICT', 'Taken.', 'other'), paths)).toEqual([{ field: ['input'], code: UserErrorCode.TAKEN, message: 'Taken.' }]);
    expect(userErrorsOf(new AppError('CONFLICT', 'Taken.', null))).toEqual([{ field: null, code: UserErrorCode.TAKEN, message: 'Taken.' }]);
  });

  it('leaves credentials, plans, limits and bugs to the top-level errors', () => {
    for (const code of ['INVALID_API_KEY', 'INVALID_TOKEN', 'PLAN_REQUIRED', 'RATE_LIMITED', 'DATABASE_UNAVAILABLE', 'FORBIDDEN'] as const) {
      expect(userErrorsOf(new AppError(code, 'no'))).toBeUndefined();
    }
    expect(userErrorsOf(new Error('bug'))).toBeUndefined();
  });
});

describe('withUserErrors', () => {
  it('answers the result, or the user errors, or rethrows', async () => {
    expect(await withUserErrors(async () => 7)).toEqual({ result: 7, userErrors: [] });
    expect(await withUserErrors(async () => Promise.reject(missingParameter('email')), { params: { email: ['input', 'email'] } })).toEqual({
      result: null,
      userErrors: [{ field: ['input', 'email'], code: UserErrorCode.REQUIRED, message: "The parameter 'email' is required." }],
    });
    await expect(withUserErrors(async () => Promise.reject(new AppError('INVALID_API_KEY', 'no')))).rejects.toThrow('no');
  });
});

function catchOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}
