import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { AppInfoDocument, UnwhitelistDomainDocument, WhitelistDomainDocument, type AppInfoQuery } from '../../generated/graphql.js';
import { formatTimestamp } from '../../lib/time.js';
import { defineRoute } from '../route.js';
import { rootField } from '../route-forms.js';

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

/** Whitelist and unwhitelist: `domain` in, the application's id and whitelist out. */
function whitelistChangeRoute<TData extends Record<string, { id: string; whitelist: string[] }>>(
  path: string,
  description: string,
  document: TypedDocumentNode<TData, { domain: string }>,
) {
  return defineRoute({
    methods: ['POST'],
    path,
    description,
    document,
    variables: (params) => ({ domain: params.requiredString('domain') }),
    shape: (data) => {
      const application = rootField(data);
      return { ID: application.id, Whitelist: application.whitelist };
    },
  });
}

export const whitelistRoute = whitelistChangeRoute('/app/whitelist', 'Whitelist a domain: the sign-in widget may run on it and return to it.', WhitelistDomainDocument);

export const unwhitelistRoute = whitelistChangeRoute('/app/unwhitelist', 'Remove a domain from the whitelist.', UnwhitelistDomainDocument);
