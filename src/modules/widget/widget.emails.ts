import type { applications } from '../../db/schema/index.js';
import type { LinkPurpose } from '../email/email-links.queries.js';
import type { EmailScope } from '../lifecycle/member-emails.js';
import type { MemberScope } from '../members/members.service.js';
import { withoutCredentials } from '../../lib/url-credentials.js';
import { widgetUrls, withQuery } from './widget.urls.js';

/**
 * The scope of an email about a member of this application: its links open the hosted pages
 * (reset-password, verify-email) at the gateway's address, carrying the whitelisted page to go
 * back to when one was given (without the credentials it may hold).
 */
export function emailScope(scope: MemberScope, application: Pick<typeof applications.$inferSelect, 'id' | 'name'>, baseUrl: string, returnUrl?: URL): EmailScope {
  const urls = widgetUrls(baseUrl, application.id);
  // Whoever built the return URL, an emailed link carries none of its credentials.
  const back = returnUrl && withoutCredentials(returnUrl).toString();
  return {
    ...scope,
    applicationName: application.name,
    linkTo: (purpose: LinkPurpose, token: string) => withQuery(purpose === 'reset' ? urls.resetPassword : urls.verifyEmail, { token, return: back }),
  };
}
