import 'reflect-metadata';
import { getMetadataStorage } from 'type-graphql';
import { describe, expect, it } from 'vitest';
import { assertAccess, CurrentApplication } from '../../src/core/auth.js';
import type { Caller, Context } from '../../src/core/context.js';

/** The value @CurrentApplication() gives a resolver, for a context with this caller. */
function currentApplication(caller: Caller): unknown {
  class Probe {
    field(): void {}
  }
  CurrentApplication()(Probe.prototype, 'field', 0);
  const param = getMetadataStorage().params.find((candidate) => candidate.target === Probe);
  if (param?.kind !== 'custom') throw new Error('no parameter decorator recorded');
  return param.resolver({ root: undefined, args: {}, context: { caller } as Context, info: undefined as never });
}

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return { name: (error as Error).constructor.name, message: (error as Error).message, extensions: (error as { extensions?: unknown }).extensions };
  }
  throw new Error('expected a failure');
};

describe('@CurrentApplication()', () => {
  const application: Caller = { kind: 'application', accountId: 1, applicationId: 2, applicationName: 'App', plan: 'basic', settings: {}, keyId: 3 };

  it('gives the calling application', () => {
    expect(currentApplication(application)).toBe(application);
  });

  it("refuses any other caller with @Authorized()'s own error", () => {
    const others: Caller[] = [{ kind: 'anonymous' }, { kind: 'member', accountId: 1, applicationId: 2, memberId: 4, sessionGeneration: 0 }, { kind: 'account', accountId: 1, keyId: 5 }];
    for (const caller of others) {
      const expected = failure(() => assertAccess(caller, []));
      expect(
        failure(() => currentApplication(caller)),
        caller.kind,
      ).toEqual(expected);
    }
    expect(failure(() => currentApplication({ kind: 'anonymous' })).extensions).toMatchObject({ code: 'MISSING_API_KEY', param: 'apiKey' });
    expect(failure(() => currentApplication({ kind: 'account', accountId: 1, keyId: 5 })).extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
  });
});
