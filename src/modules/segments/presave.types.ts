import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum PresaveStatus {
  QUEUED = 'queued',
  RUNNING = 'running',
  DONE = 'done',
}
registerEnumType(PresaveStatus, { name: 'PresaveStatus' });

export enum PresaveResultStatus {
  PENDING = 'pending',
  SAVED = 'saved',
  SKIPPED = 'skipped',
  FAILED = 'failed',
}
registerEnumType(PresaveResultStatus, {
  name: 'PresaveResultStatus',
  description: 'PENDING: being saved (or a run stopped during the call: never repeated). FAILED members are tried again by a retry.',
});

export enum LibraryItemKind {
  TRACK = 'track',
  ALBUM = 'album',
}
registerEnumType(LibraryItemKind, { name: 'LibraryItemKind' });

@ObjectType('PresaveItem', { description: 'What is saved on one network.' })
export class PresaveItem {
  @Field(() => String, { description: 'spotify or deezer.' }) network!: string;
  @Field(() => LibraryItemKind) kind!: LibraryItemKind;
  @Field(() => String, { description: "The network's id of the track or album." }) id!: string;
}

@ObjectType('PresaveResult', { description: 'What a job did for one member on one network.' })
export class PresaveResult {
  @Field(() => ID) memberId!: number;
  @Field(() => String, { nullable: true, description: 'Null when the member has no usable music network.' }) network!: string | null;
  @Field(() => PresaveResultStatus) status!: PresaveResultStatus;
  @Field(() => String, { nullable: true }) reason!: string | null;
}

@ObjectType('PresaveCounts')
export class PresaveCounts {
  @Field(() => Int) saved!: number;
  @Field(() => Int) skipped!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int) pending!: number;
}

@ObjectType('PresaveJob', { description: "Saves a track or album to the libraries of a segment's opted-in members, in the background." })
export class PresaveJob {
  @Field(() => ID) id!: number;
  @Field(() => ID) segmentId!: number;
  @Field(() => PresaveStatus) status!: PresaveStatus;
  @Field(() => [PresaveItem]) items!: PresaveItem[];
  @Field(() => Int, { description: 'Runs so far: the first and each retry.' }) runs!: number;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) startedAt!: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true }) finishedAt!: Date | null;
  @Field(() => PresaveCounts) counts!: PresaveCounts;
  @Field(() => [PresaveResult], { description: 'Per member and network, by member id.' }) results!: PresaveResult[];
}

@InputType('PresaveInput', { description: 'The track or album on each network: a URL, a URI (spotify:track:…) or a bare id.' })
export class PresaveInput {
  @Field(() => String, { nullable: true }) spotify?: string | null;
  @Field(() => String, { nullable: true }) deezer?: string | null;
  @Field(() => LibraryItemKind, { nullable: true, description: 'What bare ids name; default TRACK.' }) kind?: LibraryItemKind | null;
}
