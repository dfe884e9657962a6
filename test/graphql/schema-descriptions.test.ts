import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isIntrospectionType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../src/graphql/schema.js';

// The explorer shows each description beside its name: every type, field, argument and enum value
// of the schema a client sees carries one. Introspection types and GraphQL's own scalars bring theirs.

function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const described = (thing: { description?: string | null }) => (thing.description ?? '').trim() !== '';
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (!described(type)) missing.push(`type ${type.name}`);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!described(field)) missing.push(`field ${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) {
          if (!described(arg)) missing.push(`argument ${type.name}.${field.name}(${arg.name})`);
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) if (!described(value)) missing.push(`enum value ${type.name}.${value.name}`);
    }
  }
  return missing.sort();
}

describe('schema descriptions', () => {
  it('describes every type, field, argument and enum value', async () => {
    expect(undescribed(await getSchema())).toEqual([]);
  });

  it('finds what a schema leaves undescribed', async () => {
    const schema = buildSchema(`
      """A query root."""
      type Query { """Described.""" a(x: Int): Kind  b: Int }
      enum Kind { ONE """Two.""" TWO }
    `);
    expect(undescribed(schema)).toEqual(['argument Query.a(x)', 'enum value Kind.ONE', 'field Query.b', 'type Kind']);
  });
});
