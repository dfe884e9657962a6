import { isInputObjectType, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/** The input classes marked @OneOf(). */
const oneOfClasses = new Set<object>();

/**
 * Marks an `@InputType` class as a OneOf input object (`@oneOf`, graphql-js 16.9+): a caller gives
 * exactly one of its fields, and validation refuses anything else before a resolver runs. All of
 * its fields must be nullable. type-graphql has no option for it; markOneOfInputs sets it on the
 * built schema.
 */
export function OneOf(): ClassDecorator {
  return (target) => {
    oneOfClasses.add(target);
  };
}

/** Sets `isOneOf` on the schema's input types whose classes are marked @OneOf(). */
export function markOneOfInputs(schema: GraphQLSchema): GraphQLSchema {
  for (const input of getMetadataStorage().inputTypes) {
    if (!oneOfClasses.has(input.target)) continue;
    const type = schema.getType(input.name);
    if (isInputObjectType(type)) type.isOneOf = true;
  }
  return schema;
}
