import { ExchangeSignInTokenDocument, type ExchangeSignInTokenMutation } from '../../generated/graphql.js';
import type { Params } from '../params.js';
import { defineRoute } from '../route.js';
import { extendedVariables, keepFields } from '../fields.js';
import { envelopeBody, memberRecord } from '../records/members.js';

/**
 * `/v1.1/auth`: the application's server sends the sign-in token its return URL received (spent
 * here), or a member's own `AccessToken` as the envelope shows it, and gets member show's envelope
 * `{data, optins, services, jwt}`: `extended=1` adds `data.Extended`, `fields` trims `data` as
 * member show does. `details` is read for the old interface's sake; the services are always listed.
 */
export const authRoute = defineRoute({
  methods: ['GET', 'POST'],
  path: '/auth',
  description: "Verify a sign-in. The application's server sends the sign-in token its return URL received (spent here), or a member's own access token, and gets the member envelope; `extended=1` adds the extended node and `fields` trims the record.",
  response: 'MemberEnvelope',
  document: ExchangeSignInTokenDocument,
  variables: (params: Params) => {
    params.boolean('details');
    return { accessToken: params.requiredString('accessToken'), ...extendedVariables(params) };
  },
  shape: ({ exchangeSignInToken: member }: ExchangeSignInTokenMutation, params: Params) => {
    const record: Record<string, unknown> = memberRecord(member);
    if (member.extended) record.Extended = member.extended;
    return envelopeBody(member, member.jwt, keepFields(record, params));
  },
});
