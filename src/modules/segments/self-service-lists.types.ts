import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { Brand } from '../brands/brands.types.js';
import { Application } from '../tenancy/tenancy.types.js';
import { Segment } from './segments.types.js';

@ObjectType('SelfServiceLists', {
  description: 'The lists a fan may opt into and out of with a member JWT of this application (viewerOptIn, viewerOptOut); none until setSelfServiceLists opens some.',
})
export class SelfServiceLists {
  @Field(() => Boolean, { description: "Whether fans may opt into and out of the account's global list." }) global!: boolean;
  @Field(() => [Brand], { description: "The brands whose lists fans may join and leave (live ones; a deleted brand's list closes with it)." }) brands!: Brand[];
  @Field(() => [Segment], { description: 'The list segments fans may join and leave (live ones).' }) segments!: Segment[];
}

@InputType('SelfServiceListsInput', { description: 'The whole set of lists open to fans; it replaces the one before (an empty input closes them all).' })
export class SelfServiceListsInput {
  @Field(() => Boolean, { defaultValue: false, description: "Opens the account's global list." }) global!: boolean;
  @Field(() => [ID], { defaultValue: [], description: 'Live brands of the account, at most 100: their brand lists.' }) brandIds!: string[];
  @Field(() => [ID], { defaultValue: [], description: 'List segments of the account (not FILTER segments), at most 100.' }) segmentIds!: string[];
}

@ObjectType('SetSelfServiceListsPayload', { description: 'The answer of setSelfServiceLists: the application with its new lists, or the problems with the input.' })
export class SetSelfServiceListsPayload {
  @Field(() => Application, { nullable: true, description: 'The calling application, its selfServiceLists as set; null when userErrors is not empty.' }) application!: Application | null;
  @Field(() => [UserError], {
    description:
      'Every problem at once: NOT_FOUND at ["input", "brandIds", "2"] for an id that is no live brand (or segment) of the account, INVALID for a FILTER segment or a list too long. Nothing is changed then.',
  })
  userErrors!: UserError[];
}
