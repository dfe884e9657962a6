import {
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type DirectiveNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * A selection answered from plain objects, without running resolvers: each field reads its
 * source's property of the same name and completes as graphql-js would (leaves through their
 * type's `serialize`, lists item by item, objects by their own selection). A field that has a
 * resolver is planned only where the caller stands in for it (`StandIns`), with the value that
 * resolver gives. Anything else declines the plan, and the document then runs as any other: an
 * inline fragment, a fragment on another type, an abstract type, a response key given twice, a
 * field with a resolver nobody stands in for. A value completion refuses (a null where the schema
 * says non-null, a leaf its type cannot serialise) throws `Declined`.
 */
export interface PlainPlan {
  type: GraphQLObjectType;
  fields: PlannedField[];
}

interface PlannedField {
  key: string;
  name: string;
  /** The field's type; none for `__typename`, which answers the object's type name. */
  type?: GraphQLOutputType;
  /** The plan of the object (or list of objects) the field answers. */
  selection?: PlainPlan;
}

/** Per object type, the fields with resolvers whose values the caller gives: `(source) => value`. */
export type StandIns = Readonly<Record<string, Readonly<Record<string, (source: never) => unknown>>>>;

export class Declined extends Error {}

/**
 * The plan of `selectionSet` on `type`, with `@include`/`@skip` decided by `variables` (coerced) and
 * fragment spreads expanded; undefined when the selection is not plain (see above). `standIns`
 * names the resolver fields the caller will answer (only the names are read here).
 */
export function planSelection(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Record<string, unknown>,
  standIns: StandIns,
): PlainPlan | undefined {
  const nodes = collectFields(type, selectionSet, fragments, variables);
  if (!nodes) return undefined;
  const fields: PlannedField[] = [];
  const definitions = type.getFields();
  for (const node of nodes) {
    const name = node.name.value;
    const key = node.alias?.value ?? name;
    if (name === '__typename') {
      fields.push({ key, name });
      continue;
    }
    const definition = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
    if (!definition || node.arguments?.length) return undefined;
    if (definition.resolve && !standIns[type.name]?.[name]) return undefined;
    const named = getNamedType(definition.type);
    if (isLeafType(named)) {
      if (node.selectionSet) return undefined;
      fields.push({ key, name, type: definition.type });
      continue;
    }
    if (!isObjectType(named) || !node.selectionSet) return undefined;
    const selection = planSelection(named, node.selectionSet, fragments, variables, standIns);
    if (!selection) return undefined;
    fields.push({ key, name, type: definition.type, selection });
  }
  return { type, fields };
}

/** The response object of `source` under `plan`; throws `Declined` where graphql-js would report an error. */
export function completePlan(plan: PlainPlan, source: Record<string, unknown>, standIns: StandIns): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const own = standIns[plan.type.name];
  for (const field of plan.fields) {
    if (!field.type) {
      result[field.key] = plan.type.name;
      continue;
    }
    const standIn = own?.[field.name] as ((source: Record<string, unknown>) => unknown) | undefined;
    result[field.key] = complete(field.type, standIn ? standIn(source) : source[field.name], field.selection, standIns);
  }
  return result;
}

function complete(type: GraphQLOutputType, value: unknown, selection: PlainPlan | undefined, standIns: StandIns): unknown {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) throw new Declined(`a null for ${String(type)}`);
    return complete(type.ofType, value, selection, standIns);
  }
  if (value === null || value === undefined) return null;
  if (isListType(type)) {
    if (!Array.isArray(value)) throw new Declined('a list that is not an array');
    return value.map((item: unknown) => complete(type.ofType, item, selection, standIns));
  }
  if (isLeafType(type)) return type.serialize(value);
  if (!selection || typeof value !== 'object') throw new Declined('an object without its selection');
  return completePlan(selection, value as Record<string, unknown>, standIns);
}

/**
 * The fields a selection set asks of `type`, in order, after `@include`/`@skip` and fragment
 * spreads on exactly `type`; undefined for anything else (see PlainPlan).
 */
function collectFields(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Record<string, unknown>,
  keys = new Set<string>(),
  spread = new Set<string>(),
): FieldNode[] | undefined {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    const included = isIncluded(selection.directives ?? [], variables);
    if (included === undefined) return undefined;
    if (!included) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      if (keys.has(key)) return undefined;
      keys.add(key);
      fields.push(selection);
      continue;
    }
    if (selection.kind !== Kind.FRAGMENT_SPREAD) return undefined;
    const name = selection.name.value;
    const fragment = Object.hasOwn(fragments, name) ? fragments[name] : undefined;
    if (!fragment || spread.has(name) || fragment.typeCondition.name.value !== type.name || fragment.directives?.length) return undefined;
    spread.add(name);
    const inner = collectFields(type, fragment.selectionSet, fragments, variables, keys, spread);
    if (!inner) return undefined;
    fields.push(...inner);
  }
  return fields;
}

/** Whether `@include`/`@skip` keep a selection; undefined for any other directive. */
function isIncluded(directives: readonly DirectiveNode[], variables: Record<string, unknown>): boolean | undefined {
  let included = true;
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'include' && name !== 'skip') return undefined;
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    const value = condition?.kind === Kind.BOOLEAN ? condition.value : condition?.kind === Kind.VARIABLE ? variables[condition.name.value] : undefined;
    if (typeof value !== 'boolean') return undefined;
    if (name === 'include' ? !value : value) included = false;
  }
  return included;
}

/** The names of the variables that `@include`/`@skip` read anywhere in the document: what a plan depends on. */
export function directiveVariables(selectionSets: readonly SelectionSetNode[]): string[] {
  const names = new Set<string>();
  const walk = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      for (const directive of selection.directives ?? []) {
        for (const argument of directive.arguments ?? []) if (argument.value.kind === Kind.VARIABLE) names.add(argument.value.name.value);
      }
      if (selection.kind !== Kind.FRAGMENT_SPREAD && selection.selectionSet) walk(selection.selectionSet);
    }
  };
  selectionSets.forEach(walk);
  return [...names];
}
