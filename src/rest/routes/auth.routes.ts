import { ExchangeSignInTokenDocument, type ExchangeSignInTokenMutation } from '../../generated/graphql.js';
import type { Params } from '../params.js';
import { defineRoute } from '../route.js';
import { extendedVariables, keepFields, memberRecord, serviceRecord } from './members.routes.js';

/**
 * `/v1.1/auth`: the application's server spends the sign-in token its return URL received and gets
 * the member: the member record, with `details=1` the linked services, with `extended=1` the
 * Extended node; `fields` trims as member show does.
 */
export const authRoute = defineRoute({
  methods: ['GET', 'POST'],
  path: '/auth',
  document: ExchangeSignInTokenDocument,
  variables: (params: Params) => ({ accessToken: params.requiredString('accessToken'), ...extendedVariables(params) }),
  shape: ({ exchangeSignInToken: member }: ExchangeSignInTokenMutation, params: Params) => {
    const record: Record<string, unknown> = memberRecord(member);
    if (params.boolean('details')) record.Services = member.services.map(serviceRecord);
    if (member.extended) record.Extended = member.extended;
    return keepFields(record, params);
  },
});
