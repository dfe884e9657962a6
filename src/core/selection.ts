import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';

type SelectionInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

const cache = new WeakMap<FieldNode, Map<string, ReadonlySet<string>>>();

/**
 * The names of the fields selected under the field being resolved (or under a path of fields
 * below it, such as `edges.node` of a connection), through fragments, whatever their
 * `@include`/`@skip` conditions: a field that might be asked for counts as asked for. Lets a
 * resolver read only the columns its selection needs. Kept per document node, so the items of a
 * list share one walk.
 */
export function selectedFields(info: SelectionInfo, path: readonly string[] = []): ReadonlySet<string> {
  // One node is the usual case; merged nodes are walked each time (their set may vary by parent type).
  const [first] = info.fieldNodes;
  const key = path.join('.');
  const cached = info.fieldNodes.length === 1 ? cache.get(first) : undefined;
  let names = cached?.get(key);
  if (!names) {
    let nodes: readonly FieldNode[] = info.fieldNodes;
    for (const step of path) nodes = nodes.flatMap((node) => fieldsOf(info, node.selectionSet).filter((field) => field.name.value === step));
    names = new Set(nodes.flatMap((node) => fieldsOf(info, node.selectionSet).map((field) => field.name.value)));
    if (info.fieldNodes.length === 1) {
      if (cached) cached.set(key, names);
      else cache.set(first, new Map([[key, names]]));
    }
  }
  return names;
}

/** True when every field selected (under `path`) is one of `fields`. */
export function selectsOnly(info: SelectionInfo, fields: ReadonlySet<string>, path: readonly string[] = []): boolean {
  for (const name of selectedFields(info, path)) if (!fields.has(name)) return false;
  return true;
}

/**
 * Whether this request asks for the field `name` directly under the field being resolved, its
 * `@include`/`@skip` conditions read with the request's variables: for work that only that field
 * needs and that is worth doing early (such as a count read with a page), where asking for it
 * whatever the conditions would cost every request that leaves it out.
 */
export function asksFor(info: AskingInfo, name: string): boolean {
  return askedFields(info, name).length > 0;
}

/**
 * The arguments of each selection of the field `name` directly under the field being resolved that
 * `asksFor` counts, coerced as the field's resolver will get them (defaults filled in, variables
 * read): for work done early under the arguments a field will ask with, such as a figure read with
 * its parent's own statement. Empty when the field is not asked for or the parent's type has no such field.
 */
export function askedArguments(info: AskingInfo & Pick<GraphQLResolveInfo, 'returnType'>, name: string): Record<string, unknown>[] {
  const parent = getNamedType(info.returnType);
  const field = isObjectType(parent) ? parent.getFields()[name] : undefined;
  if (!field) return [];
  return askedFields(info, name).map((node) => getArgumentValues(field, node, info.variableValues));
}

type AskingInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>;

/** The nodes of the field `name` directly under the field being resolved that its `@include`/`@skip` keep. */
function askedFields(info: AskingInfo, name: string): FieldNode[] {
  const included = (field: FieldNode) =>
    getDirectiveValues(GraphQLSkipDirective, field, info.variableValues)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, field, info.variableValues)?.if !== false;
  return info.fieldNodes.flatMap((node) => fieldsOf(info, node.selectionSet).filter((field) => field.name.value === name && included(field)));
}

/** The field nodes of a selection set, with those of its fragments. */
function fieldsOf(info: SelectionInfo, selectionSet: SelectionSetNode | undefined, seen = new Set<string>()): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...fieldsOf(info, selection.selectionSet, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      fields.push(...fieldsOf(info, info.fragments[selection.name.value]?.selectionSet, seen));
    }
  }
  return fields;
}
