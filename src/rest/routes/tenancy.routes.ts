import {
  AppInfoDocument,
  UnwhitelistDomainDocument,
  WhitelistDomainDocument,
  type AppInfoQuery,
  type UnwhitelistDomainMutation,
  type WhitelistDomainMutation,
} from '../../generated/graphql.js';
import { formatTimestamp } from '../../lib/time.js';
import { defineRoute } from '../route.js';

export const appInfoRoute = defineRoute({
  methods: ['GET'],
  path: '/app/info',
  document: AppInfoDocument,
  variables: () => ({}),
  shape: ({ application }: AppInfoQuery) => ({
    ID: application.id,
    AccountID: application.accountId,
    Name: application.name,
    Plan: application.plan.toLowerCase(),
    Created: formatTimestamp(new Date(application.createdAt)),
    Whitelist: application.whitelist,
    LoginURL: application.loginUrl,
    RegisterURL: application.registerUrl,
    LogoutURL: application.logoutUrl,
    Widget: { URL: application.widget.url },
    Urls: application.signInLinks.map((link) => ({ Name: link.name, URL: link.url })),
  }),
});

export const whitelistRoute = defineRoute({
  methods: ['POST'],
  path: '/app/whitelist',
  plan: 'advanced',
  document: WhitelistDomainDocument,
  variables: (params) => ({ domain: params.requiredString('domain') }),
  shape: ({ whitelistDomain }: WhitelistDomainMutation) => ({ ID: whitelistDomain.id, Whitelist: whitelistDomain.whitelist }),
});

export const unwhitelistRoute = defineRoute({
  methods: ['POST'],
  path: '/app/unwhitelist',
  plan: 'advanced',
  document: UnwhitelistDomainDocument,
  variables: (params) => ({ domain: params.requiredString('domain') }),
  shape: ({ unwhitelistDomain }: UnwhitelistDomainMutation) => ({ ID: unwhitelistDomain.id, Whitelist: unwhitelistDomain.whitelist }),
});
