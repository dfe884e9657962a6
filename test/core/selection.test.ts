import { describe, expect, it } from 'vitest';
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { asksFor } from '../../src/core/selection.js';

/** The resolve info of the document's first root field, as far as asksFor reads it. */
function infoOf(document: string, variableValues: Record<string, unknown> = {}) {
  const parsed = parse(document);
  const operation = parsed.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = Object.fromEntries(
    parsed.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  return { fieldNodes: [operation.selectionSet.selections[0] as FieldNode], fragments, variableValues };
}

describe('asksFor', () => {
  it('finds a field selected directly, in an inline fragment or in a named fragment', () => {
    expect(asksFor(infoOf('{ members { totalCount } }'), 'totalCount')).toBe(true);
    expect(asksFor(infoOf('{ members { ... on MemberConnection { totalCount } } }'), 'totalCount')).toBe(true);
    expect(asksFor(infoOf('{ members { ...Counted } } fragment Counted on MemberConnection { totalCount }'), 'totalCount')).toBe(true);
    expect(asksFor(infoOf('{ members { edges { node { id } } } }'), 'totalCount')).toBe(false);
  });

  it('reads @include and @skip with the request variables', () => {
    const included = 'query($with: Boolean!) { members { totalCount @include(if: $with) } }';
    expect(asksFor(infoOf(included, { with: true }), 'totalCount')).toBe(true);
    expect(asksFor(infoOf(included, { with: false }), 'totalCount')).toBe(false);
    const skipped = 'query($without: Boolean!) { members { totalCount @skip(if: $without) } }';
    expect(asksFor(infoOf(skipped, { without: true }), 'totalCount')).toBe(false);
    expect(asksFor(infoOf(skipped, { without: false }), 'totalCount')).toBe(true);
    expect(asksFor(infoOf('{ members { totalCount @include(if: false) } }'), 'totalCount')).toBe(false);
  });

  it('does not look below the fields directly under the one being resolved', () => {
    expect(asksFor(infoOf('{ members { edges { node { totalCount: id } } } }'), 'totalCount')).toBe(false);
  });
});
