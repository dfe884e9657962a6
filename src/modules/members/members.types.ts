import { GraphQLDateTime, GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum Gender {
  M = 'M',
  F = 'F',
  OTHER = 'Other',
}
registerEnumType(Gender, { name: 'Gender', description: 'As the member gave it: M, F or Other.' });

@ObjectType('Geo', {
  description:
    'A place found from an IP address: where a member registered or last signed in, or where an activity was recorded. ' +
    'Country is ISO 3166-1 alpha-2; lat and long are decimal degrees. IP geolocation by DB-IP (https://db-ip.com), CC BY 4.0: ' +
    'pages that show it must credit DB-IP with that link.',
})
export class Geo {
  @Field(() => String, { nullable: true }) country!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @Field(() => String, { nullable: true }) region!: string | null;
  @Field(() => String, { nullable: true }) lat!: string | null;
  @Field(() => String, { nullable: true }) long!: string | null;
}

@ObjectType('ServiceLink', { description: 'One identity of a member: on a network, or email and password.' })
export class ServiceLink {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: 'Network identifier: email, spotify, youtube, …' }) network!: string;
  @Field(() => Boolean) valid!: boolean;
  @Field(() => Boolean) activitySharing!: boolean;
  @Field(() => String, { nullable: true, description: 'The user id on the network (the address, for email).' }) userId!: string | null;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => String, { nullable: true }) userUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'The network token: for API keys only; never for email.' }) token!: string | null;
  @Field(() => String, { nullable: true, description: 'The network secret or refresh token: for API keys only.' }) tokenSecret!: string | null;
  @Field(() => GraphQLDateTime, { nullable: true }) expiresAt!: Date | null;
  @Field(() => GraphQLDateTime) lastUpdated!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) lastLogin!: Date | null;
  @Field(() => String, { nullable: true }) verifiedEmail!: string | null;
  @Field(() => Boolean) paidAccount!: boolean;
  @Field(() => Int, { nullable: true }) followers!: number | null;
  @Field(() => Int, { nullable: true }) likes!: number | null;
  @Field(() => String, { nullable: true }) partnerCode!: string | null;
  @Field(() => String, { nullable: true }) partnerId!: string | null;
  @Field(() => [String], { description: 'Domains the member registered on or signed in from with this identity.' }) domains!: string[];
}

@ObjectType('MemberDomain')
export class MemberDomain {
  @Field(() => String) domain!: string;
  @Field(() => GraphQLDateTime) firstVisit!: Date;
  @Field(() => GraphQLDateTime) lastVisit!: Date;
  @Field(() => Boolean, { description: 'True when the member registered there.' }) registered!: boolean;
  /** Whose visits these are: lastUserAgent reads the member's events. */
  memberId?: number;
}

@ObjectType('Member', { description: 'A member (fan) of the account.' })
export class Member {
  @Field(() => ID) id!: number;
  @Field(() => String) uuid!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) verifiedEmail!: string | null;
  @Field(() => String, { nullable: true }) firstName!: string | null;
  @Field(() => String, { nullable: true }) surname!: string | null;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => Gender, { nullable: true }) gender!: Gender | null;
  @Field(() => GraphQLLocalDate, { nullable: true }) birthDate!: string | null;
  @Field(() => String, { nullable: true }) bio!: string | null;
  @Field(() => String, { nullable: true }) avatarUrl!: string | null;
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => String, { nullable: true }) addressLine2!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @Field(() => String, { nullable: true }) state!: string | null;
  @Field(() => String, { nullable: true }) country!: string | null;
  @Field(() => String, { nullable: true }) postCode!: string | null;
  @Field(() => String, { nullable: true }) homePhone!: string | null;
  @Field(() => String, { nullable: true }) mobilePhone!: string | null;
  @Field(() => String, { nullable: true }) website!: string | null;
  @Field(() => Geo) geo!: Geo;
  @Field(() => GraphQLDateTime) joinedAt!: Date;
  @Field(() => GraphQLDateTime) updatedAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) lastLoginAt!: Date | null;
}

@ObjectType('MemberEnvelope', { description: 'A member with a fresh JWT, as every member operation answers.' })
export class MemberEnvelope {
  @Field(() => Member) member!: Member;
  @Field(() => String, { description: 'Signed for this application; verify with /.well-known/jwks.json.' }) jwt!: string;
  @Field(() => Boolean, { description: 'True when this call created the member.' }) created!: boolean;
}

/** Profile fields shared by registration and update. Dates are ISO (`YYYY-MM-DD`). */
@InputType('MemberProfileInput')
export class MemberProfileInput {
  @Field(() => String, { nullable: true }) firstName?: string;
  @Field(() => String, { nullable: true }) surname?: string;
  @Field(() => String, { nullable: true }) username?: string;
  @Field(() => GraphQLLocalDate, { nullable: true }) birthDate?: string;
  @Field(() => Gender, { nullable: true }) gender?: Gender;
  @Field(() => String, { nullable: true }) city?: string;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2.' }) country?: string;
  @Field(() => String, { nullable: true, description: 'State, province or region.' }) state?: string;
  @Field(() => String, { nullable: true }) postCode?: string;
}

@InputType('ServiceCredentialsInput', { description: 'email + password, or a network token and user id.' })
export class ServiceCredentialsInput {
  @Field(() => String, { description: 'email, or a network identifier.' }) network!: string;
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true }) password?: string;
  @Field(() => String, { nullable: true }) authToken?: string;
  @Field(() => String, { nullable: true }) authSecret?: string;
  @Field(() => String, { nullable: true }) uid?: string;
  @Field(() => String, { nullable: true, description: 'The partner this identity came through.' }) partnerCode?: string;
  @Field(() => String, { nullable: true, description: "The member's id at that partner." }) partnerId?: string;
  @Field(() => Boolean, { nullable: true }) activitySharing?: boolean;
}

@InputType('VisitInput', { description: 'Where a registration or login came from.' })
export class VisitInput {
  @Field(() => String, { nullable: true, description: 'Website; API when absent.' }) domain?: string;
  @Field(() => String, { nullable: true }) ip?: string;
  @Field(() => String, { nullable: true }) userAgent?: string;
}

@InputType('RegisterMemberInput')
export class RegisterMemberInput {
  @Field(() => ID, { nullable: true, description: 'An existing member: the identity is attached to it instead.' })
  memberId?: string;
  @Field(() => ServiceCredentialsInput) credentials!: ServiceCredentialsInput;
  @Field(() => MemberProfileInput, { nullable: true }) profile?: MemberProfileInput;
  @Field(() => VisitInput, { nullable: true }) visit?: VisitInput;
  @Field(() => String, { nullable: true, description: "The caller's consistent import code." }) importCode?: string;
  @Field(() => ID, { nullable: true, description: 'A list segment of the account the member is opted into.' }) segmentId?: string;
}

@InputType('LoginInput')
export class LoginInput {
  @Field(() => ServiceCredentialsInput) credentials!: ServiceCredentialsInput;
  @Field(() => VisitInput, { nullable: true }) visit?: VisitInput;
  @Field(() => Boolean, { defaultValue: false, description: 'The member must have registered on visit.domain before.' })
  strictSso!: boolean;
}

@InputType('UpdateMemberInput')
export class UpdateMemberInput extends MemberProfileInput {
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true }) address?: string;
  @Field(() => String, { nullable: true }) addressLine2?: string;
  @Field(() => String, { nullable: true }) homePhone?: string;
  @Field(() => String, { nullable: true }) mobilePhone?: string;
  @Field(() => String, { nullable: true }) website?: string;
  @Field(() => String, { nullable: true }) bio?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Custom fields merged into the Extended node.' })
  extended?: Record<string, unknown>;
}

@InputType('ResetPasswordInput')
export class ResetPasswordInput {
  @Field(() => String) email!: string;
  @Field(() => String) password!: string;
  @Field(() => ID, { description: 'The id of the email service record.' }) serviceId!: string;
}

@InputType('VerifyEmailInput')
export class VerifyEmailInput {
  @Field(() => String) network!: string;
  @Field(() => String) verifiedEmail!: string;
  @Field(() => ID, { nullable: true }) serviceId?: string;
}

@InputType('MemberLookupInput', { description: 'Exactly one way to find a member.' })
export class MemberLookupInput {
  @Field(() => ID, { nullable: true }) id?: string;
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true }) verifiedEmail?: string;
  @Field(() => String, { nullable: true }) partnerCode?: string;
  @Field(() => String, { nullable: true }) partnerId?: string;
  @Field(() => String, { nullable: true }) network?: string;
  @Field(() => String, { nullable: true }) username?: string;
}
