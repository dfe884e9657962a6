import { Field, ID, ObjectType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { Brand, BrandWarning } from './brands.types.js';

@ObjectType('BrandCreatePayload', { description: 'What brandCreate did: the brand, or the user errors of its input (then nothing was written).' })
export class BrandCreatePayload {
  @Field(() => Brand, { nullable: true, description: 'The brand as stored; null when the input had user errors.' }) brand!: Brand | null;
  @Field(() => [BrandWarning], { description: 'URLs kept without an id or name read from them; empty when all were understood or nothing was written.' })
  warnings!: BrandWarning[];
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the brand was created.' }) userErrors!: UserError[];
}

@ObjectType('BrandUpdatePayload', { description: 'What brandUpdate did: the brand, or the user errors of its input (then nothing was written).' })
export class BrandUpdatePayload {
  @Field(() => Brand, { nullable: true, description: 'The brand as stored now; null when the input had user errors.' }) brand!: Brand | null;
  @Field(() => [BrandWarning], { description: 'URLs kept without an id or name read from them; empty when all were understood or nothing was written.' })
  warnings!: BrandWarning[];
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the brand was changed.' }) userErrors!: UserError[];
}

@ObjectType('BrandDeletePayload', { description: 'What brandDelete did: the id of the brand deleted, or a user error (NOT_FOUND at ["id"]).' })
export class BrandDeletePayload {
  @Field(() => ID, { nullable: true, description: 'The id of the brand deleted (now not found); null when nothing was deleted.' }) deletedBrandId!: number | null;
  @Field(() => [UserError], { description: 'NOT_FOUND at ["id"] when the account has no such live brand; empty when it was deleted.' }) userErrors!: UserError[];
}
