import {
  getArgumentValues,
  getVariableValues,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { decodeCursor, pageSize } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { JsonText } from '../../core/json-text.js';
import * as q from './listing-json.queries.js';
import type { JsonPick } from './listing-json.queries.js';
import { rankCap } from './member-listing.js';
import { MemberOrder } from './scoring.types.js';
import { SortDirection } from '../activities/activities.types.js';

/**
 * `members(orderBy: ID)` answered by one statement that builds the response's JSON (see
 * listing-json.queries.ts), for the documents that ask nothing else: the plain page of members
 * with their service summaries and opt-ins is the most requested listing of an integration, and
 * through the resolvers most of its cost was making, walking and serialising 100 nodes that
 * PostgreSQL had just serialised once already.
 *
 * A document qualifies when its only root field is `members`, its arguments are at most `first`,
 * `orderBy` (ID), `sort` and `after` (ascending), its selection holds only fields the statement
 * answers (listing-json.queries.ts lists them), and it has no fragments or directives. Each request
 * is checked again: an API key's caller, valid variables, a valid page size and cursor. Anything
 * else, and any failure, runs through the resolvers, which give the same answer or the same error:
 * test/members/listing-json.test.ts compares the two on many selections.
 */
type PageAnswer = (context: Context, variables: Record<string, unknown> | undefined) => Promise<ExecutionResult | undefined>;

const allowedArguments: ReadonlySet<string> = new Set(['first', 'orderBy', 'sort', 'after']);
/** json_build_object takes at most 100 arguments: 50 keys. */
const maxKeys = 50;

/** The answer of a document by one statement, or undefined when the document does not qualify. */
export function memberPageAnswer(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): PageAnswer | undefined {
  if (operation.operation !== OperationTypeNode.QUERY || document.definitions.length !== 1 || operation.directives?.length) return undefined;
  const [root, ...others] = operation.selectionSet.selections;
  if (others.length || root.kind !== Kind.FIELD || root.name.value !== 'members' || root.directives?.length) return undefined;
  if (root.arguments?.some((argument) => !allowedArguments.has(argument.name.value))) return undefined;
  const field = schema.getQueryType()?.getFields().members;
  const picks = root.selectionSet && picksOf(root.selectionSet, connectionPick);
  if (!field || !picks) return undefined;
  const key = root.alias?.value ?? root.name.value;
  const texts = new Map<string, string>();

  return async (context, variables) => {
    if (context.caller.kind !== 'application') return undefined;
    const page = pageOf(schema, field, root, operation, variables);
    if (!page) return undefined;
    const textKey = `${page.limit}:${page.direction}:${page.after !== undefined}`;
    let text = texts.get(textKey);
    if (!text) {
      text = q.memberPageText(picks, { limit: page.limit, direction: page.direction, after: page.after !== undefined, rankCap });
      texts.set(textKey, text);
    }
    try {
      return { data: { [key]: new JsonText(await q.memberPageJson(context.database.db, text, context.caller.accountId, page.after)) } };
    } catch {
      // The resolvers run the page again and report the failure as every other field does.
      return undefined;
    }
  };
}

/** The page the request asks for, or undefined when the resolvers should answer it (any error included). */
function pageOf(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>, root: FieldNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined) {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(field, root, coerced.coerced);
  } catch {
    return undefined;
  }
  if (args.orderBy !== MemberOrder.ID) return undefined;
  const direction = args.sort === SortDirection.ASC ? 'ASC' : 'DESC';
  let limit: number;
  let after: number | undefined;
  try {
    limit = pageSize(args.first as number);
    after = decodeCursor(args.after as string | undefined, 'after', (value): value is { i: number } => Object.keys(value).length === 1 && Number.isSafeInteger(value.i))?.i;
  } catch {
    return undefined;
  }
  // A cursor after a descending page is the resolvers' to read.
  if (after !== undefined && direction === 'DESC') return undefined;
  return { limit, direction, after } as const;
}

type PickRule = (name: string, selectionSet: SelectionSetNode | undefined) => JsonPick['picks'] | null | undefined;

/**
 * The picks of a selection set, each field checked by `rule` (undefined: a leaf; null: not
 * answered). Undefined when anything is not answered: fragments, directives, a key given twice.
 */
function picksOf(selectionSet: SelectionSetNode, rule: PickRule): JsonPick[] | undefined {
  const picks: JsonPick[] = [];
  const keys = new Set<string>();
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length || selection.arguments?.length) return undefined;
    const key = selection.alias?.value ?? selection.name.value;
    if (keys.has(key) || keys.size >= maxKeys) return undefined;
    keys.add(key);
    const children = rule(selection.name.value, selection.selectionSet);
    if (children === null) return undefined;
    picks.push({ key, field: selection.name.value, ...(children ? { picks: children } : {}) });
  }
  return picks;
}

const leaf = (fields: ReadonlySet<string> | Readonly<Record<string, string>>) => (name: string, selectionSet: SelectionSetNode | undefined) =>
  !selectionSet && (fields instanceof Set ? fields.has(name) : Object.hasOwn(fields, name)) ? undefined : null;

const nested = (selectionSet: SelectionSetNode | undefined, rule: PickRule) => (selectionSet ? (picksOf(selectionSet, rule) ?? null) : null);

const memberPick: PickRule = (name, selectionSet) => {
  const list = Object.hasOwn(q.memberLists, name) ? q.memberLists[name] : undefined;
  if (list) return nested(selectionSet, leaf(list));
  return leaf(q.memberColumns)(name, selectionSet);
};

const edgePick: PickRule = (name, selectionSet) => (name === 'node' ? nested(selectionSet, memberPick) : leaf(q.edgeFields)(name, selectionSet));

const connectionPick: PickRule = (name, selectionSet) => {
  if (name === 'edges') return nested(selectionSet, edgePick);
  if (name === 'pageInfo') return nested(selectionSet, leaf(q.pageInfoFields));
  return leaf(new Set(['__typename']))(name, selectionSet);
};
