import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { Member } from './members.types.js';
import { MemberContactFieldsInput } from './members.payloads.js';

/**
 * The profile fields a fan changes for themselves with a member JWT (viewerUpdate): those of
 * updateMember, without `email` (it is the address the fan signs in with and where reset links go:
 * moving it takes a proof of the new address, which a token alone is not) and without `extended`
 * (custom fields belong to the label's server, which may keep flags there a fan must not set).
 */
@InputType('ViewerUpdateInput', {
  description:
    "The signed-in member's own profile fields to change; a field left out, null or empty keeps its value. Text is trimmed, and refused above 500 characters unless said otherwise. " +
    'The same rules as memberUpdate. No email (changed through the application) and no custom fields (the application keeps them).',
})
export class ViewerUpdateInput extends MemberContactFieldsInput {}

@ObjectType('ViewerUpdatePayload', { description: 'The answer of viewerUpdate: the signed-in member as changed, or the problems with the input.' })
export class ViewerUpdatePayload {
  @Field(() => Member, { nullable: true, description: 'The signed-in member, changed; null when userErrors is not empty.' }) viewer!: Member | null;
  @Field(() => [UserError], { description: 'Every problem with the input at once, each at its path (["input", "birthDate"]); nothing is written when there is any.' })
  userErrors!: UserError[];
}

export enum SessionStart {
  REGISTRATION = 'registration',
  LOGIN = 'login',
}
registerEnumType(SessionStart, {
  name: 'SessionStart',
  description: 'How a widget session began.',
  valuesConfig: { REGISTRATION: { description: 'With a registration.' }, LOGIN: { description: 'With a sign-in.' } },
});

@ObjectType('ViewerSession', { description: "One of the signed-in member's sign-in widget sessions (a browser signed in on one of the label's sites); never its secret." })
export class ViewerSession {
  @Field(() => ID, { description: "The session's id: viewerEndSessions(id:) ends it." }) id!: number;
  @Field(() => ID, { description: 'The application whose sites the session serves.' }) applicationId!: number;
  @Field(() => String, { description: "That application's name." }) applicationName!: string;
  @Field(() => SessionStart, { description: 'Whether it began with a registration or a sign-in.' }) beganWith!: SessionStart;
  @Field(() => GraphQLDateTime, { description: 'When it began.' }) startedAt!: Date;
  @Field(() => GraphQLDateTime, { description: 'When it expires unless ended before.' }) expiresAt!: Date;
  @Field(() => Boolean, { description: "Whether it still answers: not expired, and not ended by viewerEndSessions, a password reset, a merge or the application's revokeMemberSessions." })
  live!: boolean;
}

@ObjectType('ViewerEndSessionsPayload', { description: 'The answer of viewerEndSessions: the sessions it ended, or the problems with the input.' })
export class ViewerEndSessionsPayload {
  @Field(() => [ViewerSession], { description: 'The widget sessions ended (as they were before; all live ones when no id was given).' }) endedSessions!: ViewerSession[];
  @Field(() => Boolean, {
    description: 'True when every session ended, the member JWT of this request among them: the front end must sign in again (the JWT answers INVALID_TOKEN from now on).',
  })
  signedOut!: boolean;
  @Field(() => [UserError], { description: 'NOT_FOUND at ["id"] for an id that is not one of the signed-in member\'s sessions; nothing is ended then.' })
  userErrors!: UserError[];
}
