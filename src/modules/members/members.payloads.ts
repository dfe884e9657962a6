import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { Gender, LoginInput, Member, ServiceCredentialsInput, VisitInput } from './members.types.js';

/**
 * The inputs and payloads of the member mutations a sign-up, sign-in or profile form calls
 * (memberRegister, memberLogin, memberUpdate): errors as data (core/user-errors.ts), and the
 * member's secrets in a session payload instead of on the Member.
 */

/**
 * Profile fields as a form sends them. The date of birth is text, not a LocalDate: a form's
 * "2023-02-30" or "tomorrow" then reaches validation and comes back as a user error at its path,
 * instead of failing the whole request's variable coercion (HTTP 400, no path).
 */
@InputType('MemberProfileFieldsInput', {
  description: 'Profile fields; a field left out, null or empty leaves the stored value as it is. Text is trimmed, and refused above 500 characters unless said otherwise.',
})
export class MemberProfileFieldsInput {
  @Field(() => String, { nullable: true, description: 'Given name.' }) firstName?: string;
  @Field(() => String, { nullable: true, description: 'Family name.' }) surname?: string;
  @Field(() => String, { nullable: true, description: "The member's name; stored as given. At registration, left out, one is made from the email address." }) username?: string;
  @Field(() => String, {
    nullable: true,
    description: 'Date of birth as YYYY-MM-DD: a real date, in the past, from 1900. Text, so that what a form holds is answered as a user error (INVALID) when it is not such a date.',
  })
  birthDate?: string;
  @Field(() => Gender, { nullable: true, description: 'M, F or OTHER.' }) gender?: Gender;
  @Field(() => String, { nullable: true, description: 'City.' }) city?: string;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2.' }) country?: string;
  @Field(() => String, { nullable: true, description: 'State, province or region.' }) state?: string;
  @Field(() => String, { nullable: true, description: 'Postal code, at most 20 characters.' }) postCode?: string;
}

@InputType('MemberRegisterInput', { description: 'A sign-up: the identity, and what to store with a new member.' })
export class MemberRegisterInput {
  @Field(() => ServiceCredentialsInput, {
    description: 'The identity to register; an email password must be 8 to 1024 characters. An identity the account has already answers its member (created false) when its password matches.',
  })
  credentials!: ServiceCredentialsInput;
  @Field(() => MemberProfileFieldsInput, { nullable: true, description: 'Profile of the new member; not applied when the identity already has a member.' })
  profile?: MemberProfileFieldsInput;
  @Field(() => VisitInput, { nullable: true, description: 'Where the registration came from; recorded as a registration event.' }) visit?: VisitInput;
  @Field(() => String, { nullable: true, description: "The caller's consistent import code (REST code), stored on a new member." }) importCode?: string;
  @Field(() => ID, { nullable: true, description: 'A list segment of the account the member is opted into.' }) segmentId?: string;
}

@InputType('MemberLoginInput', { description: 'A sign-in with an identity the account has.' })
export class MemberLoginInput extends LoginInput {}

/** The profile fields and the contact fields registration does not ask for: what memberUpdate and viewerUpdate share. */
@InputType('MemberContactFieldsInput', { description: 'Profile and contact fields (a base of MemberUpdateInput and ViewerUpdateInput).' })
export class MemberContactFieldsInput extends MemberProfileFieldsInput {
  @Field(() => String, { nullable: true, description: 'Postal address, first line.' }) address?: string;
  @Field(() => String, { nullable: true, description: 'Postal address, second line.' }) addressLine2?: string;
  @Field(() => String, { nullable: true, description: 'Home phone number, at most 40 characters.' }) homePhone?: string;
  @Field(() => String, { nullable: true, description: 'Mobile phone number, at most 40 characters.' }) mobilePhone?: string;
  @Field(() => String, { nullable: true, description: "The member's website." }) website?: string;
  @Field(() => String, { nullable: true, description: 'Free text about the member, at most 5,000 characters.' }) bio?: string;
}

@InputType('MemberUpdateInput', { description: 'The profile fields to change; a field left out, null or empty keeps its value.' })
export class MemberUpdateInput extends MemberContactFieldsInput {
  @Field(() => String, {
    nullable: true,
    description: "A new contact address; the member's email identity moves to it too (TAKEN when another member signs in with it).",
  })
  email?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Custom fields merged into the Extended node, nested at most 32 levels deep.' })
  extended?: Record<string, unknown>;
}

@ObjectType('MemberSession', {
  description: "A signed-in member's credentials, answered once by memberLogin and memberRegister: keep them with the session, not with the member. " + 'For the calling application only.',
})
export class MemberSession {
  @Field(() => String, { description: "A member JWT signed for this application (verify with /.well-known/jwks.json): the fan's own page calls viewer with it." })
  jwt!: string;
  @Field(() => GraphQLDateTime, { description: 'When the JWT stops answering (its exp): sign the member in again before it.' }) jwtExpiresAt!: Date;
  @Field(() => String, { description: "The member's access token, for the application's server: proof that it holds the member (mergeMembers, the sign-in check)." })
  accessToken!: string;
  @Field(() => GraphQLDateTime, { description: 'When the access token stops answering; a sign-in past half its life renews it.' }) accessTokenExpiresAt!: Date;
}

@ObjectType('MemberRegisterPayload', { description: 'What memberRegister answers: the member and its session, or the user errors (then nothing was written).' })
export class MemberRegisterPayload {
  @Field(() => Member, { nullable: true, description: 'The member registered, or the one who has this identity; null with user errors.' }) member!: Member | null;
  @Field(() => MemberSession, { nullable: true, description: "The member's session; null with user errors." }) session!: MemberSession | null;
  @Field(() => Boolean, { nullable: true, description: 'True when this call created the member; null with user errors.' }) created!: boolean | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its path (["input", "credentials", "password"]); empty on success.' }) userErrors!: UserError[];
}

@ObjectType('MemberLoginPayload', { description: 'What memberLogin answers: the member and its session, or the user errors (then nothing was recorded).' })
export class MemberLoginPayload {
  @Field(() => Member, { nullable: true, description: 'The member signed in; null with user errors.' }) member!: Member | null;
  @Field(() => MemberSession, { nullable: true, description: "The member's session; null with user errors." }) session!: MemberSession | null;
  @Field(() => [UserError], {
    description: 'Every problem with the input, each at its path; a wrong password is WRONG_PASSWORD, an unknown identity NO_ACCOUNT (or WRONG_PASSWORD under uniform sign-in errors).',
  })
  userErrors!: UserError[];
}

@ObjectType('MemberUpdatePayload', { description: 'What memberUpdate answers: the member as changed, or the user errors (then nothing was changed).' })
export class MemberUpdatePayload {
  @Field(() => Member, { nullable: true, description: 'The member as changed; null with user errors.' }) member!: Member | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its path (["member", "id"], ["input", "birthDate"]); empty on success.' })
  userErrors!: UserError[];
}
