import { DrizzleQueryError } from 'drizzle-orm/errors';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AppError, classifyError, missingParameter, notFound, type ClassifyOptions } from '../../src/core/errors.js';
import { clientGoneMark } from '../../src/db/errors.js';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const violated = (code: string, fields: Record<string, string>) => Object.assign(new Error(`violation ${code}`), { code, ...fields });
const clientGone = (error: Error) => Object.assign(error, { [clientGoneMark]: true });
const wrapped = (cause: Error) => new DrizzleQueryError('select $1', ['secret'], cause);
const located = (original: Error) => new GraphQLError(original.message, { path: ['members'], originalError: original });
const apollo = (code: string, message: string) => new GraphQLError(message, { extensions: { code } });
const fastify = (statusCode: number, message: string) => Object.assign(new Error(message), { statusCode, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });

const rest: ClassifyOptions = { surface: 'rest', requestId: 'req-1' };
const graphql: ClassifyOptions = { surface: 'graphql' };
const development: ClassifyOptions = { surface: 'graphql', exposeInternals: true };
const parser = (requestId?: string): ClassifyOptions => ({ surface: 'rest', source: 'http-parser', requestId });

const restMasked = 'Internal error; quote request id req-1 when reporting it.';
const graphqlMasked = 'Internal error: the request id in extensions identifies it in the server log.';
const unavailable = 'The database is unavailable; retry in a few seconds.';

describe('classifyError', () => {
  const table: [string, unknown, ClassifyOptions, object][] = [
    ['a known error', notFound('Member'), rest, { kind: 'known', status: 404, code: 'NOT_FOUND', number: 5, message: 'Member not found.', param: 'id', masked: false, log: false }],
    ['a known error behind a resolver', located(missingParameter('domain')), graphql, { kind: 'known', status: 400, code: 'MISSING_PARAMETER', number: 3, param: 'domain', masked: false, log: false }],
    [
      'a known error rebuilt from its extensions',
      new GraphQLError('Slow down.', { extensions: { code: 'RATE_LIMITED', aeCode: 6, param: null } }),
      rest,
      { kind: 'known', status: 429, code: 'RATE_LIMITED', number: 6, masked: false, log: false },
    ],
    ['shutting down', new AppError('SHUTTING_DOWN', 'Closing.'), rest, { kind: 'known', status: 503, code: 'SHUTTING_DOWN', number: 20, masked: false, log: false }],
    [
      'the database refusing connections',
      wrapped(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')),
      rest,
      { kind: 'database', status: 503, code: 'DATABASE_UNAVAILABLE', number: 20, message: unavailable, param: null, masked: true, log: 'error' },
    ],
    [
      'the database shutting down, behind a resolver',
      located(wrapped(coded('57P01'))),
      graphql,
      { kind: 'database', status: 503, code: 'DATABASE_UNAVAILABLE', message: unavailable, masked: true, log: 'error' },
    ],
    [
      'a data exception',
      wrapped(coded('22P02', 'invalid input syntax for type integer: "abc"')),
      rest,
      { kind: 'database', status: 400, code: 'INVALID_PARAMETER', number: 4, message: 'A parameter is invalid: a value does not have the expected form.', param: null, masked: true, log: 'error' },
    ],
    [
      'an unlisted data exception',
      wrapped(coded('22012')),
      graphql,
      { kind: 'database', status: 400, code: 'INVALID_PARAMETER', message: 'A parameter is invalid: a value is not acceptable.', masked: true },
    ],
    // Races between clients: postgres.js names the constraint `constraint_name`, PGlite `constraint`.
    [
      'a record for a member deleted meanwhile',
      wrapped(violated('23503', { constraint_name: 'activity_records_member_fk' })),
      rest,
      { kind: 'database', status: 404, code: 'NOT_FOUND', number: 5, param: 'memberId', masked: true, log: false },
    ],
    [
      'an opt-in for a member deleted meanwhile, on PGlite',
      located(violated('23503', { constraint: 'optins_member_fk' })),
      graphql,
      { kind: 'database', status: 404, code: 'NOT_FOUND', param: 'memberId', log: false },
    ],
    ['a foreign key other than a member', wrapped(violated('23503', { constraint_name: 'activity_records_activity_fk' })), rest, { kind: 'unexpected', status: 500, code: 'INTERNAL', log: 'error' }],
    [
      'an email address taken meanwhile',
      wrapped(violated('23505', { constraint_name: 'member_services_account_network_uid_key', detail: 'Key (account_id, network, uid)=(3, email, a@example.com) already exists.' })),
      rest,
      { kind: 'database', status: 409, code: 'CONFLICT', number: 17, message: 'Another member signs in with this email address.', param: 'email', masked: true, log: false },
    ],
    [
      'a network account taken meanwhile',
      wrapped(violated('23505', { constraint_name: 'member_services_account_network_uid_key', detail: 'Key (account_id, network, uid)=(3, spotify, u1) already exists.' })),
      graphql,
      { kind: 'database', status: 409, code: 'CONFLICT', param: 'network', log: false },
    ],
    ['another unique violation', wrapped(violated('23505', { constraint_name: 'members_account_access_token_hash_key' })), rest, { kind: 'unexpected', status: 500, code: 'INTERNAL' }],
    [
      'a statement past the statement timeout',
      wrapped(coded('57014', 'canceling statement due to user request')),
      rest,
      { kind: 'database', status: 503, code: 'STATEMENT_TIMEOUT', number: 20, masked: true, log: 'error' },
    ],
    [
      'a statement cancelled because its client went away, behind a resolver',
      located(wrapped(clientGone(coded('57014', 'canceling statement due to user request')))),
      graphql,
      { kind: 'database', code: 'STATEMENT_TIMEOUT', masked: true, log: false },
    ],
    ['a member merged meanwhile, again and again', wrapped(coded('MQM01')), rest, { kind: 'database', status: 409, code: 'CONFLICT', param: 'memberId', log: false }],
    ['a deadlock left after the retries', wrapped(coded('40P01')), graphql, { kind: 'database', status: 409, code: 'CONFLICT', param: null, log: false }],
    [
      "Fastify's malformed body",
      fastify(415, 'Unsupported Media Type'),
      rest,
      { kind: 'request', status: 400, code: 'INVALID_PARAMETER', number: 4, message: 'The request could not be read: Unsupported Media Type', param: null, masked: false, log: false },
    ],
    ['a resolver error that carries a 4xx statusCode', fastify(415, 'Unsupported Media Type'), graphql, { kind: 'unexpected', status: 500, code: 'INTERNAL', masked: true, log: 'error' }],
    ['headers over the limit', coded('HPE_HEADER_OVERFLOW'), parser(), { kind: 'request', status: 431, code: 'INVALID_PARAMETER', number: 4, masked: false, log: false }],
    ['a client too slow', coded('ERR_HTTP_REQUEST_TIMEOUT'), parser(), { kind: 'request', status: 408, message: 'The request was not sent in time.' }],
    ['a malformed request line', coded('HPE_INVALID_METHOD'), parser(), { kind: 'request', status: 400, message: 'The request could not be read as HTTP.' }],
    [
      'a document that fails validation',
      apollo('GRAPHQL_VALIDATION_FAILED', 'Cannot query field "nope".'),
      graphql,
      { kind: 'document', status: 400, code: 'GRAPHQL_VALIDATION_FAILED', number: 4, message: 'Cannot query field "nope".', masked: false, log: false },
    ],
    ['a variable of the wrong type', apollo('BAD_USER_INPUT', 'Variable "$id" got invalid value.'), graphql, { kind: 'document', status: 400, code: 'BAD_USER_INPUT', number: 4, log: false }],
    [
      'a bug, on REST',
      new TypeError('cannot read properties of undefined'),
      rest,
      { kind: 'unexpected', status: 500, code: 'INTERNAL', number: 20, message: restMasked, param: null, masked: true, log: 'error' },
    ],
    ['a bug, on REST, whatever the environment', new TypeError('x'), { ...rest, exposeInternals: true }, { kind: 'unexpected', message: restMasked, masked: true, log: 'error' }],
    [
      'a bug behind a resolver, on GraphQL',
      located(new Error('relation "members" does not exist')),
      graphql,
      { kind: 'unexpected', status: 500, code: 'INTERNAL', number: 20, message: graphqlMasked, masked: true, log: 'error' },
    ],
    ['a bug on GraphQL in development', new Error('relation "members" does not exist'), development, { kind: 'unexpected', message: 'relation "members" does not exist', masked: false, log: 'error' }],
    [
      'a GraphQL error that is neither',
      new GraphQLError('Cannot return null for non-nullable field.', { path: ['member', 'id'] }),
      graphql,
      { kind: 'unexpected', status: 500, masked: true, log: 'error' },
    ],
    ['something that is not an Error', 'a string', rest, { kind: 'unexpected', status: 500, message: restMasked }],
  ];

  it.each(table)('%s', (_name, error, options, expected) => {
    expect(classifyError(error, options)).toMatchObject(expected);
  });

  it('never shows what a masked error says', () => {
    for (const [name, error, options] of table) {
      const classification = classifyError(error, options);
      if (classification.masked) expect(classification.message, name).not.toMatch(/5432|ECONNREFUSED|abc|relation|cannot read/);
    }
  });

  it('shows a known error as it is, on both surfaces', () => {
    const error = new AppError('PLAN_REQUIRED', 'This operation needs an advanced plan.');
    expect(classifyError(error, rest)).toEqual(classifyError(located(error), graphql));
  });
});
