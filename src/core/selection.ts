import { GraphQLIncludeDirective, GraphQLSkipDirective, getDirectiveValues, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

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
export function asksFor(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>, name: string): boolean {
  const included = (field: FieldNode) =>
    getDirectiveValues(GraphQLSkipDirective, field, info.variableValues)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, field, info.variableValues)?.if !== false;
  return info.fieldNodes.some((node) => fieldsOf(info, node.selectionSet).some((field) => field.name.value === name && included(field)));
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
