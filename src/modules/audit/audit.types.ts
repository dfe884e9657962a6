import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { PageInfo } from '../../core/connection.js';

@ObjectType('AuditActor', { description: 'Who made a change: a staff member, an application key, or the gateway itself (a CLI command).' })
export class AuditActorType {
  @Field(() => String, { description: 'staff, api_key or system.' }) type!: string;
  @Field(() => ID, { nullable: true, description: "The staff member's or the key's id; null for system." }) id!: string | null;
  @Field(() => String, { description: "A name to show, kept as it was: the application's name, the staff member's email, or the command (cli)." }) label!: string;
}

@ObjectType('AuditTarget', { description: 'What a change was made to.' })
export class AuditTargetType {
  @Field(() => String, { description: 'fan, staff, key, application, segment or account.' }) type!: string;
  @Field(() => ID, { description: "Its id: a fan's member id, a key's id, an application's id." }) id!: string;
}

@ObjectType('AuditEvent', { description: "One entry of the account's audit log; entries are never changed or removed." })
export class AuditEvent {
  @Field(() => ID, { description: "The entry's id." }) id!: string;
  @Field(() => GraphQLDateTime, { description: 'When it happened.' }) occurredAt!: Date;
  @Field(() => AuditActorType, { description: 'Who did it.' }) actor!: AuditActorType;
  @Field(() => String, { description: 'What was done: fan.edit, fan.merge, fan.erase, fan.export, fan.sessions_end, fan.reset_sent, key.create, … (docs/console.md, "Audit log").' })
  action!: string;
  @Field(() => AuditTargetType, { nullable: true, description: 'What it was done to; null for changes of no one thing.' }) target!: AuditTargetType | null;
  @Field(() => String, { description: 'success, denied or failed.' }) outcome!: string;
  @Field(() => GraphQLJSONObject, { description: "Names, counts and ids (the fields changed, the merged member's id); never a fan's personal data." })
  details!: Record<string, unknown>;
  @Field(() => String, { nullable: true, description: "The client's address, as budgets count it (an IPv6 address by its prefix)." }) ip!: string | null;
  @Field(() => String, { nullable: true, description: "The client's User-Agent, at most 512 characters." }) userAgent!: string | null;
  @Field(() => String, { nullable: true, description: "The request's id (x-request-id)." }) requestId!: string | null;
}

@ObjectType('AuditEventEdge', { description: 'An entry of a page of the audit log, with its place in the log.' })
export class AuditEventEdge {
  @Field(() => String, { description: "Opaque: this entry's place in the log, to pass as after." }) cursor!: string;
  @Field(() => AuditEvent, { description: 'The entry.' }) node!: AuditEvent;
}

@ObjectType('AuditEventConnection', { description: 'A page of the audit log, newest first.' })
export class AuditEventConnection {
  @Field(() => [AuditEvent], { description: "The page's entries, newest first." }) nodes!: AuditEvent[];
  @Field(() => [AuditEventEdge], { description: 'The nodes with their cursors, in the same order.' }) edges!: AuditEventEdge[];
  @Field(() => PageInfo, { description: 'Whether entries follow, and the cursor to read them (endCursor as after).' }) pageInfo!: PageInfo;
  /** The count of the filter's entries, for totalCount (read on request). */
  count?: () => Promise<number>;
}

@InputType('AuditFilter', { description: 'Entries matching every field given.' })
export class AuditFilterInput {
  @Field(() => String, { nullable: true, description: 'staff, api_key or system.' }) actorType?: string | null;
  @Field(() => ID, { nullable: true, description: "The staff member's or the key's id (with actorType)." }) actorId?: string | null;
  @Field(() => String, { nullable: true, description: 'One action, as AuditEvent.action names it.' }) action?: string | null;
  @Field(() => ID, { nullable: true, description: 'Entries about this fan (target fan, this member id).' }) memberId?: string | null;
  @Field(() => String, { nullable: true, description: 'Entries about this kind of target.' }) targetType?: string | null;
  @Field(() => ID, { nullable: true, description: 'Entries about this target id (with targetType).' }) targetId?: string | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'From this time on.' }) from?: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'Before this time.' }) to?: Date | null;
}
