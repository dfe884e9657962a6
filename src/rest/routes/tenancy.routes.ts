import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  AppInfoDocument,
  SetBrandCustomFieldsDocument,
  SetNetworkVerificationDocument,
  SetSignInErrorsDocument,
  UnwhitelistDomainDocument,
  WhitelistDomainDocument,
  type AppInfoQuery,
} from '../../generated/graphql.js';
import { formatTimestamp } from '../../lib/time.js';
import { defineRoute } from '../route.js';
import { rootField } from '../route-forms.js';

export const appInfoRoute = defineRoute({
  methods: ['GET'],
  path: '/app/info',
  response: 'AppInfo',
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
function whitelistChangeRoute<TData extends Record<string, { id: string; whitelist: string[] }>>(path: string, description: string, document: TypedDocumentNode<TData, { domain: string }>) {
  return defineRoute({
    methods: ['POST'],
    path,
    description,
    response: 'Whitelist',
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

const networkVerificationModes = ['verify', 'trust'] as const;

export const networkVerificationRoute = defineRoute({
  methods: ['POST'],
  path: '/app/network-verification',
  response: 'NetworkVerificationSwitch',
  description:
    "How network tokens given to register and login are trusted: `mode=verify` checks each token with its network (a registration may then renew the stored tokens of the identity it proves); `mode=trust` takes the application at its word and never replaces an existing identity's stored tokens.",
  document: SetNetworkVerificationDocument,
  variables: (params) => {
    const mode = params.oneOf('mode', networkVerificationModes) ?? params.requiredString('mode');
    return { mode: mode === 'verify' ? ('VERIFY' as const) : ('TRUST' as const) };
  },
  shape: ({ setNetworkVerification }) => ({ ID: setNetworkVerification.id, NetworkVerification: setNetworkVerification.networkVerification.toLowerCase() }),
});

const signInErrorModes = ['distinct', 'uniform'] as const;

export const signInErrorsRoute = defineRoute({
  methods: ['POST'],
  path: '/app/sign-in-errors',
  response: 'SignInErrorsSwitch',
  description:
    'How the widget\'s on-page sign-in refuses an email and password (docs/widget.md, "The on-page flow"): `mode=distinct` answers 13 for an unknown address and 18 for a wrong password, as AE does (the 13s one address is given are bounded); `mode=uniform` answers 18 for both.',
  document: SetSignInErrorsDocument,
  variables: (params) => {
    const mode = params.oneOf('mode', signInErrorModes) ?? params.requiredString('mode');
    return { mode: mode === 'uniform' ? ('UNIFORM' as const) : ('DISTINCT' as const) };
  },
  shape: ({ setSignInErrors }) => ({ ID: setSignInErrors.id, SignInErrors: setSignInErrors.signInErrors.toLowerCase() }),
});

export const brandCustomFieldsRoute = defineRoute({
  methods: ['POST'],
  path: '/app/brand-custom-fields',
  description:
    'Switch custom fields on brands on (`enabled=1`) or off (`enabled=0`) for the application: the interface\'s "custom data fields (Enterprise Only, must be enabled first)". Enterprise plan. ' +
    'Switched off, stored custom fields stay and are still shown; brand create and edit refuse new ones (code 12).',
  response: 'BrandCustomFieldsSwitch',
  document: SetBrandCustomFieldsDocument,
  variables: (params) => {
    params.requiredString('enabled');
    return { enabled: params.boolean('enabled') };
  },
  shape: ({ setBrandCustomFields }) => ({ ID: setBrandCustomFields.id, BrandCustomFields: setBrandCustomFields.brandCustomFields }),
});
