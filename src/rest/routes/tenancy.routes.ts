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
  description: "Application information: the plan, the whitelist, and the sign-in and registration URLs of the key's application.",
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
  description: 'Whitelist a domain: the sign-in widget may run on it and return to it.',
  document: WhitelistDomainDocument,
  variables: (params) => ({ domain: params.requiredString('domain') }),
  shape: ({ whitelistDomain }: WhitelistDomainMutation) => ({ ID: whitelistDomain.id, Whitelist: whitelistDomain.whitelist }),
});

export const unwhitelistRoute = defineRoute({
  methods: ['POST'],
  path: '/app/unwhitelist',
  description: 'Remove a domain from the whitelist.',
  document: UnwhitelistDomainDocument,
  variables: (params) => ({ domain: params.requiredString('domain') }),
  shape: ({ unwhitelistDomain }: UnwhitelistDomainMutation) => ({ ID: unwhitelistDomain.id, Whitelist: unwhitelistDomain.whitelist }),
});
