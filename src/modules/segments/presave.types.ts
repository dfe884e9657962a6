import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum PresaveStatus {
  QUEUED = 'queued',
  RUNNING = 'running',
  DONE = 'done',
}
registerEnumType(PresaveStatus, {
  name: 'PresaveStatus',
  description: 'Where a presave job stands.',
  valuesConfig: {
    QUEUED: { description: 'Waiting to run, first or after a retry.' },
    RUNNING: { description: 'Being run; a job whose gateway stopped stays here until a retry 15 minutes after its run started.' },
    DONE: { description: 'The latest run finished; FAILED results can be tried again with retryPresaveJob.' },
  },
});

export enum PresaveResultStatus {
  PENDING = 'pending',
  SAVED = 'saved',
  SKIPPED = 'skipped',
  FAILED = 'failed',
}
registerEnumType(PresaveResultStatus, {
  name: 'PresaveResultStatus',
  description: 'What happened to one member on one network.',
  valuesConfig: {
    PENDING: { description: 'Being saved, or a run stopped during the call to the network: never repeated.' },
    SAVED: { description: "Saved to the member's library." },
    SKIPPED: { description: 'Not attempted: no valid link with a token, or saved already by an earlier job (reason says which).' },
    FAILED: { description: 'The network refused or was unavailable (reason says which); a retry tries again.' },
  },
});

export enum LibraryItemKind {
  TRACK = 'track',
  ALBUM = 'album',
}
registerEnumType(LibraryItemKind, {
  name: 'LibraryItemKind',
  description: 'What a presave saves.',
  valuesConfig: {
    TRACK: { description: 'A track.' },
    ALBUM: { description: 'An album.' },
  },
});

@ObjectType('PresaveItem', { description: 'What is saved on one network.' })
export class PresaveItem {
  @Field(() => String, { description: 'spotify or deezer.' }) network!: string;
  @Field(() => LibraryItemKind, { description: 'A track or an album.' }) kind!: LibraryItemKind;
  @Field(() => String, { description: "The network's id of the track or album." }) id!: string;
}

@ObjectType('PresaveResult', { description: 'What a job did for one member on one network.' })
export class PresaveResult {
  @Field(() => ID, { description: 'The member.' }) memberId!: number;
  @Field(() => String, { nullable: true, description: 'spotify or deezer; null when the member has no usable music network.' }) network!: string | null;
  @Field(() => PresaveResultStatus, { description: 'What happened.' }) status!: PresaveResultStatus;
  @Field(() => String, { nullable: true, description: 'Why it was skipped or failed, in words; null when saved.' }) reason!: string | null;
}

@ObjectType('PresaveCounts', { description: "A job's results, counted by status." })
export class PresaveCounts {
  @Field(() => Int, { description: 'Results SAVED.' }) saved!: number;
  @Field(() => Int, { description: 'Results SKIPPED.' }) skipped!: number;
  @Field(() => Int, { description: 'Results FAILED.' }) failed!: number;
  @Field(() => Int, { description: 'Results PENDING.' }) pending!: number;
}

@ObjectType('PresaveJob', { description: "Saves a track or album to the libraries of a segment's opted-in members, in the background." })
export class PresaveJob {
  @Field(() => ID, { description: "The job's id." }) id!: number;
  @Field(() => ID, { description: 'The list segment whose opted-in members it visits.' }) segmentId!: number;
  @Field(() => PresaveStatus, { description: 'Where the job stands.' }) status!: PresaveStatus;
  @Field(() => [PresaveItem], { description: 'What it saves, one item per network.' }) items!: PresaveItem[];
  @Field(() => Int, { description: 'Runs so far: the first and each retry.' }) runs!: number;
  @Field(() => GraphQLDateTime, { description: 'When the job was created.' }) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When its latest run started; null before the first.' }) startedAt!: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When its latest run finished; null until then.' }) finishedAt!: Date | null;
  @Field(() => PresaveCounts, { description: 'The results so far, by status.' }) counts!: PresaveCounts;
  @Field(() => [PresaveResult], { description: 'Per member and network, by member id.' }) results!: PresaveResult[];
}

@InputType('PresaveInput', { description: 'The track or album on each network: a URL, a URI (spotify:track:…) or a bare id.' })
export class PresaveInput {
  @Field(() => String, { nullable: true, description: 'The item on Spotify: a URL, a spotify:track: or spotify:album: URI, or a bare id.' }) spotify?: string | null;
  @Field(() => String, { nullable: true, description: 'The item on Deezer: a URL, a URI or a bare id.' }) deezer?: string | null;
  @Field(() => LibraryItemKind, { nullable: true, description: 'What bare ids name; default TRACK.' }) kind?: LibraryItemKind | null;
}
