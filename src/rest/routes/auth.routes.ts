import { ExchangeSignInTokenDocument, type ExchangeSignInTokenMutation } from '../../generated/graphql.js';
import type { Params } from '../params.js';
import { defineRoute } from '../route.js';
import { extendedVariables, keepFields } from '../fields.js';
import { linkedServiceRecord, memberRecord } from '../records/members.js';
import { optInRecord } from '../records/segments.js';

/**
 * `/v1.1/auth`: the application's server sends the sign-in token its return URL received (spent
 * here), or a member's own `AccessToken` as the envelope shows it, and gets the member back. The
 * default is the lean view `{data, optins, jwt}`; `details=1` adds `services`, the linked services
 * without their network tokens (records/members.ts says why). `extended=1` adds `data.Extended`,
 * `fields` trims `data` as member show does.
 */
export const authRoute = defineRoute({
  methods: ['GET', 'POST'],
  path: '/auth',
  description:
    "Verify a sign-in. The application's server sends the sign-in token its return URL received (spent here), or a member's own access token, and gets the member: `{data, optins, jwt}`; `details=1` adds the linked services (without their tokens), `extended=1` the extended node, and `fields` trims the record.",
  response: 'AuthEnvelope',
  document: ExchangeSignInTokenDocument,
  variables: (params: Params) => ({ accessToken: params.requiredString('accessToken'), details: params.boolean('details'), ...extendedVariables(params) }),
  shape: ({ exchangeSignInToken: member }: ExchangeSignInTokenMutation, params: Params) => {
    const record: Record<string, unknown> = memberRecord(member);
    if (member.extended) record.Extended = member.extended;
    const data = keepFields(record, params);
    const optins = member.optins.map(optInRecord);
    return member.services ? { data, optins, services: member.services.map(linkedServiceRecord), jwt: member.jwt } : { data, optins, jwt: member.jwt };
  },
});
