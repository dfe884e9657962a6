import { GraphQLDateTime, GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { OneOf } from '../../core/one-of.js';

export enum Gender {
  M = 'M',
  F = 'F',
  OTHER = 'Other',
}
registerEnumType(Gender, {
  name: 'Gender',
  description: 'As the member gave it: M, F or Other.',
  valuesConfig: {
    M: { description: 'Male (REST M).' },
    F: { description: 'Female (REST F).' },
    OTHER: { description: 'Other (REST Other).' },
  },
});

@ObjectType('Geo', {
  description:
    'A place found from an IP address: where a member registered or last signed in, or where an activity was recorded. ' +
    'Country is ISO 3166-1 alpha-2; lat and long are decimal degrees. IP geolocation by DB-IP (https://db-ip.com), CC BY 4.0: ' +
    'pages that show it must credit DB-IP with that link.',
})
export class Geo {
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country code (REST GeoCountry); null when the address was not placed.' }) country!: string | null;
  @Field(() => String, { nullable: true, description: "City (REST GeoCity); city-level data is approximate, often the provider's hub." }) city!: string | null;
  @Field(() => String, { nullable: true, description: 'State or province as the data names it (REST GeoRegion).' }) region!: string | null;
  @Field(() => String, { nullable: true, description: 'Latitude in decimal degrees, as text rounded to four decimals (REST GeoLat).', deprecationReason: 'Use latitude.' })
  lat!: string | null;
  @Field(() => String, { nullable: true, description: 'Longitude in decimal degrees, as text rounded to four decimals (REST GeoLong).', deprecationReason: 'Use longitude.' })
  long!: string | null;
}

@ObjectType('ServiceLink', { description: 'One identity of a member: on a network, or email and password.' })
export class ServiceLink {
  @Field(() => ID, { description: "The identity's id (REST service record ID, member_service_id): resetPassword and verifyEmail take it as serviceId." }) id!: number;
  @Field(() => String, { description: 'Network identifier: email, spotify, youtube, …' }) network!: string;
  @Field(() => Boolean, {
    description: 'False once the network refused the stored tokens (refreshServiceTokens); true again after the member signs in or registers with it (REST Valid).',
  })
  valid!: boolean;
  @Field(() => Boolean, { description: 'Whether the member shares activity on this network (REST ActivitySharing); true unless registered with activitySharing false.' })
  activitySharing!: boolean;
  @Field(() => String, { nullable: true, description: 'The user id on the network (the address, for email).' }) userId!: string | null;
  @Field(() => String, { nullable: true, description: "The username on the network: the network's own (VERIFY mode) or the one the member registered with; null when neither was given." })
  username!: string | null;
  @Field(() => String, { nullable: true, description: "The member's profile page on the network, when a verified profile gave one (REST UserURL)." }) userUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'The network token: for API keys only; never for email.' }) token!: string | null;
  @Field(() => String, { nullable: true, description: 'The network secret or refresh token: for API keys only.' }) tokenSecret!: string | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When the stored network token expires, as the network said on the last refresh; null when not known (REST Expires).' })
  expiresAt!: Date | null;
  @Field(() => GraphQLDateTime, { description: 'When this identity was last written: registered, attached, signed in with, refreshed or verified (REST LastUpdated).' })
  lastUpdated!: Date;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The latest login with this identity; null if it never signed in (REST LastLogin).' }) lastLogin!: Date | null;
  @Field(() => String, { nullable: true, description: "The address this identity proved: from the network's verified profile, or set by verifyEmail; null otherwise." })
  verifiedEmail!: string | null;
  @Field(() => Boolean, { description: 'True when a verified profile says the account is a paid one on that network (REST PaidAccount).' }) paidAccount!: boolean;
  @Field(() => Int, { nullable: true, description: 'Followers on the network, from its verified profile; null when not known.' }) followers!: number | null;
  @Field(() => Int, { nullable: true, description: 'Likes on the network, when stored for the identity; null when not known.' }) likes!: number | null;
  @Field(() => String, { nullable: true, description: 'The partner the identity was registered through (REST partner, PartnerCode).' }) partnerCode!: string | null;
  @Field(() => String, { nullable: true, description: "The member's id at that partner (REST sourceuid, PartnerID)." }) partnerId!: string | null;
  @Field(() => [String], { description: 'Domains the member registered on or signed in from with this identity.' }) domains!: string[];
}

@ObjectType('MemberDomain', { description: "A website a member registered on or signed in from, over all of the member's identities." })
export class MemberDomain {
  @Field(() => String, { description: 'The host name, without scheme or path; API for registrations and logins through the API without a domain.' }) domain!: string;
  @Field(() => GraphQLDateTime, { description: 'The first registration or sign-in there.' }) firstVisit!: Date;
  @Field(() => GraphQLDateTime, { description: 'The latest registration or sign-in there.' }) lastVisit!: Date;
  @Field(() => Boolean, { description: 'True when the member registered there.' }) registered!: boolean;
  /** Whose visits these are: lastUserAgent reads the member's events. */
  memberId?: number;
}

@ObjectType('Member', { description: 'A member (fan) of the account.' })
export class Member {
  @Field(() => ID, { description: "The member's id (REST ID, MemberID); the id of a member merged into another answers as the survivor." }) id!: number;
  @Field(() => String, { description: 'A random UUID given to the member at registration (REST UUID).' }) uuid!: string;
  @Field(() => String, { nullable: true, description: "The member's contact address as given; for email members, the address they sign in with." }) email!: string | null;
  @Field(() => String, { nullable: true, description: 'The address confirmed by verifyEmail or an emailed verification link; null until then.' }) verifiedEmail!: string | null;
  @Field(() => String, { nullable: true, description: 'Given name.' }) firstName!: string | null;
  @Field(() => String, { nullable: true, description: 'Family name.' }) surname!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The member's name: as given, or made at registration from the email address's local part when none was given (such names are unique in the account).",
  })
  username!: string | null;
  @Field(() => Gender, { nullable: true, description: 'As the member gave it; null when not given.' }) gender!: Gender | null;
  @Field(() => GraphQLLocalDate, { nullable: true, description: 'Date of birth; null when not given.' }) birthDate!: string | null;
  @Field(() => String, { nullable: true, description: 'Free text about the member, at most 5,000 characters.' }) bio!: string | null;
  @Field(() => String, { nullable: true, description: 'A picture of the member, when one is stored (REST AvatarURL).' }) avatarUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'Postal address, first line.' }) address!: string | null;
  @Field(() => String, { nullable: true, description: 'Postal address, second line.' }) addressLine2!: string | null;
  @Field(() => String, { nullable: true, description: 'City, as the member gave it.' }) city!: string | null;
  @Field(() => String, { nullable: true, description: 'State, province or region, as the member gave it (REST region at registration).' }) state!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "ISO 3166-1 alpha-2 code, upper case: as the member gave it, or else the country of the registration's IP address (REST Country, CountryCode).",
  })
  country!: string | null;
  @Field(() => String, { nullable: true, description: 'Postal code, at most 20 characters.' }) postCode!: string | null;
  @Field(() => String, { nullable: true, description: 'Home phone number as given, at most 40 characters.' }) homePhone!: string | null;
  @Field(() => String, { nullable: true, description: 'Mobile phone number as given, at most 40 characters.' }) mobilePhone!: string | null;
  @Field(() => String, { nullable: true, description: "The member's website, as given." }) website!: string | null;
  @Field(() => Geo, { description: 'Where the member was last seen: placed from the IP address of the latest registration, attached identity or login that gave a locatable one.' })
  geo!: Geo;
  @Field(() => GraphQLDateTime, { description: 'When the member registered (REST Joined).' }) joinedAt!: Date;
  @Field(() => GraphQLDateTime, { description: "When the member's record last changed: a profile update, a login, a verification." }) updatedAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true, description: "The member's latest login, through any identity; null if the member never signed in." }) lastLoginAt!: Date | null;
}

@ObjectType('MemberEnvelope', { description: 'A member with a fresh JWT, as every member operation answers.' })
export class MemberEnvelope {
  @Field(() => Member, { description: 'The member, as the operation left it (the survivor, after a merge).' }) member!: Member;
  @Field(() => String, { description: 'Signed for this application; verify with /.well-known/jwks.json.' }) jwt!: string;
  @Field(() => Boolean, { description: 'True when this call created the member.' }) created!: boolean;
}

/** Profile fields shared by registration and update. Dates are ISO (`YYYY-MM-DD`). */
@InputType('MemberProfileInput', {
  description: 'Profile fields; a field left out, null or empty leaves the stored value as it is. Text is trimmed, and refused above 500 characters unless said otherwise.',
})
export class MemberProfileInput {
  @Field(() => String, { nullable: true, description: 'Given name.' }) firstName?: string;
  @Field(() => String, { nullable: true, description: 'Family name.' }) surname?: string;
  @Field(() => String, { nullable: true, description: "The member's name; stored as given. At registration, left out, one is made from the email address." }) username?: string;
  @Field(() => GraphQLLocalDate, { nullable: true, description: 'Date of birth: a real date, in the past, from 1900.' }) birthDate?: string;
  @Field(() => Gender, { nullable: true, description: 'M, F or OTHER.' }) gender?: Gender;
  @Field(() => String, { nullable: true, description: 'City.' }) city?: string;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2.' }) country?: string;
  @Field(() => String, { nullable: true, description: 'State, province or region.' }) state?: string;
  @Field(() => String, { nullable: true, description: 'Postal code, at most 20 characters.' }) postCode?: string;
}

@InputType('ServiceCredentialsInput', { description: 'email + password, or a network token and user id.' })
export class ServiceCredentialsInput {
  @Field(() => String, { description: 'email, or a network identifier.' }) network!: string;
  @Field(() => String, { nullable: true, description: "The address, for network email (required there); with another network, the new member's contact address." }) email?: string;
  @Field(() => String, {
    nullable: true,
    description: 'The password, for network email (required there): 8 to 1024 characters for a new one, taken exactly as sent (never trimmed).',
  })
  password?: string;
  @Field(() => String, { nullable: true, description: "The network's access token, for any other network (required there); stored sealed." }) authToken?: string;
  @Field(() => String, { nullable: true, description: 'The secret or refresh token some networks give besides the token; stored sealed.' }) authSecret?: string;
  @Field(() => String, { nullable: true, description: "The member's user id on the network, for any network but email (required there)." }) uid?: string;
  @Field(() => String, { nullable: true, description: 'The partner this identity came through, at most 255 characters.' }) partnerCode?: string;
  @Field(() => String, { nullable: true, description: "The member's id at that partner, at most 255 characters." }) partnerId?: string;
  @Field(() => Boolean, { nullable: true, description: 'Whether the member shares activity on this network; left out, a new identity shares and an existing one keeps its setting.' })
  activitySharing?: boolean;
}

@InputType('VisitInput', { description: 'Where a registration or login came from.' })
export class VisitInput {
  @Field(() => String, { nullable: true, description: 'Website; API when absent.' }) domain?: string;
  @Field(() => String, {
    nullable: true,
    description: "The fan's IP address: places the member (geo) and counts toward the fan's own failed-login budget; kept with the event only.",
  })
  ip?: string;
  @Field(() => String, { nullable: true, description: "The fan's browser user agent (REST useragent), kept with the event." }) userAgent?: string;
}

@InputType('RegisterMemberInput', { description: 'A registration: the identity, and what to store with a new member.' })
export class RegisterMemberInput {
  @Field(() => ID, { nullable: true, description: 'An existing member: the identity is attached to it instead.' })
  memberId?: string;
  @Field(() => ServiceCredentialsInput, { description: 'The identity to register; an identity the account already has answers its member (created false).' })
  credentials!: ServiceCredentialsInput;
  @Field(() => MemberProfileInput, { nullable: true, description: 'Profile of the new member; not applied when the identity already has a member.' }) profile?: MemberProfileInput;
  @Field(() => VisitInput, { nullable: true, description: 'Where the registration came from; recorded as a registration event.' }) visit?: VisitInput;
  @Field(() => String, { nullable: true, description: "The caller's consistent import code (REST code), stored on a new member." }) importCode?: string;
  @Field(() => ID, { nullable: true, description: 'A list segment of the account the member is opted into.' }) segmentId?: string;
}

@InputType('LoginInput', { description: 'A sign-in with an identity the account has.' })
export class LoginInput {
  @Field(() => ServiceCredentialsInput, { description: 'email and password, or a network token and user id (the login set of networks).' })
  credentials!: ServiceCredentialsInput;
  @Field(() => VisitInput, { nullable: true, description: 'Where the login came from; recorded as a login event, and its ip places the member.' }) visit?: VisitInput;
  @Field(() => Boolean, { defaultValue: false, description: 'The member must have registered on visit.domain before (which is then required); otherwise any registration in the account will do.' })
  strictSso!: boolean;
}

@InputType('UpdateMemberInput', { description: 'The profile fields to change; a field left out, null or empty keeps its value.' })
export class UpdateMemberInput extends MemberProfileInput {
  @Field(() => String, {
    nullable: true,
    description: "A new contact address; the member's email identity moves to it too (refused when another member signs in with it).",
  })
  email?: string;
  @Field(() => String, { nullable: true, description: 'Postal address, first line.' }) address?: string;
  @Field(() => String, { nullable: true, description: 'Postal address, second line.' }) addressLine2?: string;
  @Field(() => String, { nullable: true, description: 'Home phone number, at most 40 characters.' }) homePhone?: string;
  @Field(() => String, { nullable: true, description: 'Mobile phone number, at most 40 characters.' }) mobilePhone?: string;
  @Field(() => String, { nullable: true, description: "The member's website." }) website?: string;
  @Field(() => String, { nullable: true, description: 'Free text about the member, at most 5,000 characters.' }) bio?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Custom fields merged into the Extended node, nested at most 32 levels deep.' })
  extended?: Record<string, unknown>;
}

@InputType('ResetPasswordInput', { description: "The member's email identity, named twice as a check, and its new password." })
export class ResetPasswordInput {
  @Field(() => String, { description: 'The address of the email identity; must match it.' }) email!: string;
  @Field(() => String, { description: 'The new password: 8 to 1024 characters, taken exactly as sent.' }) password!: string;
  @Field(() => ID, { description: 'The id of the email service record.' }) serviceId!: string;
}

@InputType('VerifyEmailInput', { description: "The address to record as verified, and the member's identity that proved it." })
export class VerifyEmailInput {
  @Field(() => String, { description: "The network of the identity that proved the address (email, or a network identifier); the member's identity on it is used unless serviceId is given." })
  network!: string;
  @Field(() => String, { description: 'The verified address.' }) verifiedEmail!: string;
  @Field(() => ID, { nullable: true, description: "The id of the member's identity that proved it (ServiceLink.id); default: the member's identity on network." })
  serviceId?: string;
}

@InputType('MemberLookupInput', { description: 'Exactly one way to find a member.' })
export class MemberLookupInput {
  @Field(() => ID, { nullable: true, description: "The member's id; a merged member's id finds the survivor. 0 counts as not given." }) id?: string;
  @Field(() => String, { nullable: true, description: "The member's email address (any case); the oldest such member when several have it." }) email?: string;
  @Field(() => String, { nullable: true, description: "The member's verified address (any case); the oldest such member when several have it." }) verifiedEmail?: string;
  @Field(() => String, { nullable: true, description: "A partner code of one of the member's identities; with partnerId." }) partnerCode?: string;
  @Field(() => String, { nullable: true, description: "The member's id at that partner; with partnerCode." }) partnerId?: string;
  @Field(() => String, { nullable: true, description: 'A network identifier (REST service); with username.' }) network?: string;
  @Field(() => String, { nullable: true, description: "The member's username on that network (any case); with network." }) username?: string;
}

@InputType('PartnerRef', { description: "A member's identity as a partner knows it." })
export class PartnerRef {
  @Field(() => String, { description: "The partner code of one of the member's identities." }) code!: string;
  @Field(() => String, { description: "The member's id at that partner." }) id!: string;
}

@InputType('NetworkUserRef', { description: "A member's identity as a network names it." })
export class NetworkUserRef {
  @Field(() => String, { description: 'A network identifier: spotify, youtube, …' }) network!: string;
  @Field(() => String, { description: "The member's username on that network (any case)." }) username!: string;
}

/** A member named in exactly one way; `@oneOf` lets validation refuse two ways (or none) before anything runs. */
@OneOf()
@InputType('MemberRef', { description: 'Exactly one way to name a member of the account (a @oneOf input: give one field).' })
export class MemberRef {
  @Field(() => ID, { nullable: true, description: "The member's id; a merged member's id names the survivor." }) id?: string;
  @Field(() => String, { nullable: true, description: "The member's email address (any case); the oldest such member when several have it." }) email?: string;
  @Field(() => String, { nullable: true, description: "The member's verified address (any case); the oldest such member when several have it." }) verifiedEmail?: string;
  @Field(() => PartnerRef, { nullable: true, description: "The member's identity at a partner." }) partner?: PartnerRef;
  @Field(() => NetworkUserRef, { nullable: true, description: "The member's username on a network." }) networkUser?: NetworkUserRef;
}

/** The lookup a MemberRef stands for, as lookupMember takes it. */
export function lookupOfRef(ref: MemberRef): MemberLookupInput {
  return {
    id: ref.id ?? undefined,
    email: ref.email ?? undefined,
    verifiedEmail: ref.verifiedEmail ?? undefined,
    partnerCode: ref.partner?.code,
    partnerId: ref.partner?.id,
    network: ref.networkUser?.network,
    username: ref.networkUser?.username,
  };
}
