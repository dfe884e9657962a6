import type { Executor } from '../../db/client.js';
import { requireMember } from '../members/members.service.js';
import { servicesOfMembers } from '../members/members.queries.js';
import { currentOptInsOf } from '../segments/optins.queries.js';
import type { WidgetApplication } from './widget.service.js';

/**
 * `aeJS.user`: the signed-in member in the REST envelope's shape (`{data, services, optins}`, as
 * `/v1.1/auth` answers the site's server), with what a page may hold and nothing more. Left out:
 * the member's `AccessToken` (a 90-day bearer credential, which `trigger.login` would turn into a
 * session on any whitelisted site: the session cookie is HttpOnly so that no script on a page can
 * carry a sign-in away, and a token in `aeJS.user` would undo that), the networks' tokens, and the
 * envelope's `jwt`. docs/widget.md, "The user object", gives the reasoning.
 */
export async function widgetUser(db: Executor, app: WidgetApplication, memberId: number) {
  const [member, services, optins] = await Promise.all([requireMember(db, app.accountId, memberId), servicesOfMembers(db, app.accountId, [memberId]), currentOptInsOf(db, app.accountId, [memberId])]);
  return {
    data: {
      ID: member.id,
      Email: member.email,
      FirstName: member.firstName,
      Surname: member.surname,
      Username: member.username,
      Gender: member.gender,
      BirthDate: member.birthDate,
      AvatarURL: member.avatarUrl,
      City: member.city,
      State: member.state,
      Country: member.country,
      PostCode: member.postCode,
      VerifiedEmail: member.verifiedEmail,
    },
    services: services.map((service) => ({
      Service: service.network,
      ID: String(service.id),
      UserID: service.uid,
      Username: service.username,
      UserURL: service.userUrl,
      VerifiedEmail: service.verifiedEmail,
      Valid: service.valid ? '1' : '0',
    })),
    // Ids of services and opt-ins as text, as the envelope gives them.
    optins: optins.map((optIn) => ({
      ID: String(optIn.id),
      Type: optIn.kind === 'brand' ? 'Brand' : optIn.kind === 'segment' ? 'Segment' : 'Global',
      SegmentID: optIn.kind === 'global' ? null : String(optIn.segmentId ?? optIn.brandId),
      Label: optIn.kind === 'segment' ? optIn.segmentLabel : null,
      Name: optIn.kind === 'brand' ? optIn.brandName : optIn.kind === 'segment' ? optIn.segmentName : null,
    })),
  };
}

export type WidgetUser = Awaited<ReturnType<typeof widgetUser>>;
