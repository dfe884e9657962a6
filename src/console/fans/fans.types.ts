import { GraphQLDateTime, GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Gender } from '../../modules/members/members.types.js';

export enum FanMatchEnum {
  id = 'id',
  uid = 'uid',
  email = 'email',
  verifiedEmail = 'verifiedEmail',
  name = 'name',
  firstName = 'firstName',
  surname = 'surname',
  username = 'username',
}
registerEnumType(FanMatchEnum, {
  name: 'FanMatch',
  description: "What a search hit matched: the member id, a network's user id, the email or verified email, first name + surname as typed, or one name field.",
});

export enum FanSearchKindEnum {
  digits = 'digits',
  email = 'email',
  name = 'name',
}
registerEnumType(FanSearchKindEnum, {
  name: 'FanSearchKind',
  description:
    'How the input was read: digits (a member id or a network user id, exactly), an address (contains @: a prefix of the email or verified email), or a name (a prefix of the first name, surname or username, or a network user id exactly).',
});

@ObjectType('FanSummary', { description: 'A fan as a search lists them.' })
export class FanSummaryType {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: "The fan's name, else email, else `Fan #<id>`: the heading the console shows." }) displayName!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) verifiedEmail!: string | null;
  @Field(() => String, { nullable: true }) firstName!: string | null;
  @Field(() => String, { nullable: true }) surname!: string | null;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => ID, { nullable: true, description: 'Set when the fan was merged into another (only a search by exact id lists one): the survivor.' })
  mergedIntoId!: number | null;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) lastLoginAt!: Date | null;
}

@ObjectType('FanEdge', { description: 'One search hit.' })
export class FanEdgeType {
  @Field(() => String, { description: 'Pass as `after` to read the hits after this one.' }) cursor!: string;
  @Field(() => FanSummaryType) node!: FanSummaryType;
  @Field(() => FanMatchEnum) matchedOn!: FanMatchEnum;
  @Field(() => Boolean, { description: 'The whole value matched, not a prefix of it.' }) exact!: boolean;
}

@ObjectType('FanPageInfo', { description: 'Whether more hits follow. No total is counted: show "more" rather than a count.' })
export class FanPageInfoType {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => String, { nullable: true, description: "The last hit's cursor; null for an empty page." }) endCursor!: string | null;
}

@ObjectType('FanConnection', { description: 'A page of search hits, exact matches first.' })
export class FanConnectionType {
  @Field(() => FanSearchKindEnum) kind!: FanSearchKindEnum;
  @Field(() => [FanEdgeType]) edges!: FanEdgeType[];
  @Field(() => FanPageInfoType) pageInfo!: FanPageInfoType;
}

@ObjectType('FanAbilities', { description: "What the viewer's role allows on this fan: the console shows only these buttons (the server checks each operation again)." })
export class FanAbilitiesType {
  @Field(() => Boolean, { description: 'updateFan (fans.edit).' }) edit!: boolean;
  @Field(() => Boolean, { description: 'mergePreview, mergeFans (fans.merge).' }) merge!: boolean;
  @Field(() => Boolean, { description: 'Export data: GET /console/fans/:id/export.json (fans.export).' }) export!: boolean;
  @Field(() => Boolean, { description: 'eraseFan (fans.erase).' }) erase!: boolean;
  @Field(() => Boolean, { description: 'endFanSessions (fans.sessions).' }) sessions!: boolean;
  @Field(() => Boolean, { description: 'sendFanPasswordReset (fans.reset).' }) reset!: boolean;
}

@ObjectType('FanService', { description: "A fan's identity on a network (or email): never its tokens or password." })
export class FanServiceType {
  @Field(() => ID) id!: number;
  @Field(() => String) network!: string;
  @Field(() => String, { description: "The fan's user id there (for email, the address they sign in with)." }) uid!: string;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => String, { nullable: true }) userUrl!: string | null;
  @Field(() => Boolean, { description: 'False once the network refused the stored tokens.' }) valid!: boolean;
  @Field(() => Boolean) paidAccount!: boolean;
  @Field(() => Int, { nullable: true }) followers!: number | null;
  @Field(() => String, { nullable: true, description: 'An address the network proved.' }) verifiedEmail!: string | null;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) lastLoginAt!: Date | null;
}

@ObjectType('FanOptIn', { description: 'An opt-in, current (optedOutAt null) or past.' })
export class FanOptInType {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: 'brand, segment or global.' }) kind!: string;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => String, { nullable: true }) brandName!: string | null;
  @Field(() => ID, { nullable: true }) segmentId!: number | null;
  @Field(() => String, { nullable: true }) segmentName!: string | null;
  @Field(() => GraphQLDateTime) optedInAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) optedOutAt!: Date | null;
}

@ObjectType('FanStanding', { description: "The fan's score and rank over the last week, every record of the account (member(id)'s defaults)." })
export class FanStandingType {
  @Field(() => Int) points!: number;
  @Field(() => Int) activityCount!: number;
  @Field(() => String, { nullable: true, description: 'Rank by points: exact below 1000, `999+` beyond; null without activity.' }) position!: string | null;
  @Field(() => GraphQLDateTime) windowStart!: Date;
  @Field(() => GraphQLDateTime) windowEnd!: Date;
}

@ObjectType('FanActivity', { description: 'One activity record of the fan.' })
export class FanActivityType {
  @Field(() => ID) id!: number;
  @Field(() => ID) activityId!: number;
  @Field(() => String) activityName!: string;
  @Field(() => String) activityType!: string;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => String, { nullable: true }) service!: string | null;
  @Field(() => Int) points!: number;
  @Field(() => String, { nullable: true }) link!: string | null;
  @Field(() => GraphQLDateTime) completedAt!: Date;
  @Field(() => GraphQLDateTime) recordedAt!: Date;
}

@ObjectType('FanActivityConnection', { description: "A page of the fan's activity, newest first." })
export class FanActivityConnectionType {
  @Field(() => [FanActivityType]) nodes!: FanActivityType[];
  @Field(() => FanPageInfoType) pageInfo!: FanPageInfoType;
}

@ObjectType('FanSession', { description: 'A sign-in widget session of the fan.' })
export class FanSessionType {
  @Field(() => ID) id!: number;
  @Field(() => ID) applicationId!: number;
  @Field(() => String, { description: 'registration or login.' }) beganWith!: string;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime) expiresAt!: Date;
  @Field(() => Boolean, { description: 'Still answers: not expired, and not ended by endFanSessions, a reset or a merge.' }) live!: boolean;
}

@ObjectType('FanSignIn', { description: 'A registration or sign-in of the fan.' })
export class FanSignInType {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: 'register or login.' }) kind!: string;
  @Field(() => String) network!: string;
  @Field(() => String, { nullable: true }) domain!: string | null;
  @Field(() => String, { nullable: true }) ip!: string | null;
  @Field(() => String, { nullable: true }) userAgent!: string | null;
  @Field(() => GraphQLDateTime) createdAt!: Date;
}

@ObjectType('FanEmail', { description: 'An email queued or sent to the fan (never its body: a pending one holds a live link).' })
export class FanEmailType {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: 'verify-email or reset-password.' }) kind!: string;
  @Field(() => String) recipient!: string;
  @Field(() => String) subject!: string;
  @Field(() => String, { description: 'pending, sent or failed.' }) status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) sentAt!: Date | null;
}

@ObjectType('Fan', { description: "A fan's page: profile here, the rest in fields read only when asked." })
export class FanType {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: "The fan's name, else email, else `Fan #<id>`: the page's heading." }) displayName!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) verifiedEmail!: string | null;
  @Field(() => GraphQLDateTime, { nullable: true }) emailVerifiedAt!: Date | null;
  @Field(() => String, { nullable: true }) firstName!: string | null;
  @Field(() => String, { nullable: true }) surname!: string | null;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => String, { nullable: true, description: 'M, F or OTHER.' }) gender!: string | null;
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
  @Field(() => GraphQLJSONObject, { description: "The account's custom fields of the fan." }) extended!: Record<string, unknown>;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime) updatedAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) lastLoginAt!: Date | null;
  /** The member's session generation: what `sessions.live` is read against. */
  sessionGeneration!: number;
}

@InputType('FanProfileInput', { description: 'Profile fields to change; a field left out, null or empty stays as it is. Text is trimmed and refused above 500 characters unless said otherwise.' })
export class FanProfileInput {
  @Field(() => String, { nullable: true }) firstName?: string;
  @Field(() => String, { nullable: true }) surname?: string;
  @Field(() => String, { nullable: true }) username?: string;
  @Field(() => String, { nullable: true, description: "A new address: the fan's email sign-in follows it (refused when another fan signs in with it)." }) email?: string;
  @Field(() => GraphQLLocalDate, { nullable: true, description: 'A real date in the past, from 1900.' }) birthDate?: string;
  @Field(() => Gender, { nullable: true }) gender?: Gender;
  @Field(() => String, { nullable: true }) city?: string;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2.' }) country?: string;
  @Field(() => String, { nullable: true }) state?: string;
  @Field(() => String, { nullable: true, description: 'At most 20 characters.' }) postCode?: string;
  @Field(() => String, { nullable: true }) address?: string;
  @Field(() => String, { nullable: true }) addressLine2?: string;
  @Field(() => String, { nullable: true, description: 'At most 40 characters.' }) homePhone?: string;
  @Field(() => String, { nullable: true, description: 'At most 40 characters.' }) mobilePhone?: string;
  @Field(() => String, { nullable: true }) website?: string;
  @Field(() => String, { nullable: true, description: 'At most 5,000 characters.' }) bio?: string;
}

@ObjectType('MergeField', { description: 'One profile field in a merge: the merge keeps the kept fan’s value, and fills an empty one from the other fan.' })
export class MergeFieldType {
  @Field(() => String) field!: string;
  @Field(() => String, { nullable: true }) keep!: string | null;
  @Field(() => String, { nullable: true }) other!: string | null;
  @Field(() => String, { nullable: true, description: 'The value the kept fan ends with.' }) result!: string | null;
  @Field(() => Boolean, { description: "Both have a value and they differ: the other fan's is dropped." }) conflict!: boolean;
}

@ObjectType('MergeMoves', { description: 'What moves from the other fan to the kept one.' })
export class MergeMovesType {
  @Field(() => Int) services!: number;
  @Field(() => Int) optIns!: number;
  @Field(() => Int) records!: number;
}

@ObjectType('MergePreview', { description: 'What mergeFans(keepId, otherId) would do; nothing is changed by reading it.' })
export class MergePreviewType {
  @Field(() => FanType) keep!: FanType;
  @Field(() => FanType) other!: FanType;
  @Field(() => [MergeFieldType]) fields!: MergeFieldType[];
  @Field(() => MergeMovesType) moves!: MergeMovesType;
  @Field(() => Int, { description: "The other fan's current opt-ins to lists the kept fan is on: closed by the merge (their history stays)." }) optInsClosed!: number;
  @Field(() => [String], { description: 'Networks both fans have an identity on: the kept fan ends with both.' }) networkConflicts!: string[];
  @Field(() => [String], { description: "Custom fields both fans have: the kept fan's value stays." }) extendedConflicts!: string[];
}

@ObjectType('ConsoleSegment', { description: 'A segment of the account, as the console lists it for export.' })
export class ConsoleSegmentType {
  @Field(() => ID) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) label!: string | null;
  @Field(() => String, { description: 'list (members opt in) or filter (computed from a saved filter).' }) kind!: string;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => String, { description: 'GET it (with the console session and x-console-csrf: 1) for the CSV; x-total-rows says how many rows come.' }) exportUrl!: string;
}

@ObjectType('ConsoleDay', { description: 'Records and distinct members on one UTC day.' })
export class ConsoleDayType {
  @Field(() => GraphQLLocalDate) date!: string;
  @Field(() => Int) count!: number;
  @Field(() => Int) distinctMembers!: number;
}

@ObjectType('ConsoleStats', { description: "The account's figures over the last `days` days." })
export class ConsoleStatsType {
  @Field(() => GraphQLDateTime) windowStart!: Date;
  @Field(() => GraphQLDateTime) windowEnd!: Date;
  @Field(() => Int) registrations!: number;
  @Field(() => Int) logins!: number;
  @Field(() => Int, { description: 'Distinct fans who registered or signed in.' }) signedInMembers!: number;
  @Field(() => Int, { description: 'Distinct fans with counted activity.' }) activeMembers!: number;
  @Field(() => Int) records!: number;
  @Field(() => [ConsoleDayType]) days!: ConsoleDayType[];
}
