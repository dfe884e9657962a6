import type { FastifyRequest } from 'fastify';
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isLeafType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLList,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { Params } from '../../src/rest/params.js';
import type { RestRoute } from '../../src/rest/route.js';

/**
 * The whole API surface, read from the built schema and the REST route table rather than listed by
 * hand: every Query and Mutation field with the places in its arguments that name something of an
 * account (an `ID`, or an access token), and every `/v1.1` route with the parameters that end up in
 * such a place. Suites that must cover the whole surface walk these lists, so a new operation is in
 * them the moment it exists.
 */

/** What a foreign id can name. `token` is a sign-in token or a member access token. */
export type IdKind = 'member' | 'service' | 'brand' | 'segment' | 'activity' | 'record' | 'presaveJob' | 'token';

export type Path = (string | number)[];

export interface GraphqlSlot {
  /** Where in the variables: `['input', 'memberId']`, `['filter', 'memberIds', 0]`. */
  path: Path;
  /** The argument or input field name. */
  name: string;
  /** The slot and every object around it are required. */
  required: boolean;
  /** The slot is required in the object holding it (once that object is given). */
  nonNull: boolean;
  kind: IdKind | undefined;
}

export interface GraphqlOperation {
  operation: 'query' | 'mutation';
  name: string;
  field: GraphQLField<unknown, unknown>;
  slots: GraphqlSlot[];
}

/** Names that say what kind of id they hold, wherever they appear. `id` alone says nothing. */
const kindByName: [RegExp, IdKind][] = [
  [/^(memberId|memberIds|excludeMemberIds|fromId|intoId)$/, 'member'],
  [/^brandId$/, 'brand'],
  [/^(segmentId|membersFromSegment)$/, 'segment'],
  [/^(activityId|activityIds)$/, 'activity'],
  [/^(recordId|recordIds)$/, 'record'],
  [/^serviceId$/, 'service'],
  [/accessToken$/i, 'token'],
];

export const kindOfName = (name: string): IdKind | undefined => kindByName.find(([pattern]) => pattern.test(name))?.[1];

const isTokenName = (name: string) => /accessToken$/i.test(name);

/** An input type without its non-null wrapper, as getNullableType answers it. */
export type NullableInputType = GraphQLScalarType | GraphQLEnumType | GraphQLInputObjectType | GraphQLList<GraphQLInputType>;

/** Every place in a field's arguments holding an ID or a token, with its kind when the name tells it. */
function slotsOf(args: readonly GraphQLArgument[]): GraphqlSlot[] {
  const slots: GraphqlSlot[] = [];
  const visit = (name: string, type: GraphQLInputType, path: Path, required: boolean, depth: number) => {
    const nowRequired = required && isNonNullType(type);
    let inner = getNullableType<NullableInputType>(type);
    if (isListType(inner)) {
      path = [...path, 0];
      inner = getNullableType<NullableInputType>(inner.ofType);
    }
    const named = getNamedType(inner);
    if (named.name === 'ID' || (named.name === 'String' && isTokenName(name))) {
      slots.push({ path, name, required: nowRequired, nonNull: isNonNullType(type), kind: kindOfName(name) });
    } else if (isInputObjectType(named) && depth < 4) {
      for (const field of Object.values(named.getFields())) visit(field.name, field.type, [...path, field.name], nowRequired, depth + 1);
    }
  };
  for (const arg of args) visit(arg.name, arg.type, [arg.name], true, 0);
  return slots;
}

export function graphqlOperations(schema: GraphQLSchema): GraphqlOperation[] {
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const;
  return roots.flatMap(([operation, type]) => Object.values(type?.getFields() ?? {}).map((field) => ({ operation, name: field.name, field, slots: slotsOf(field.args) })));
}

/**
 * A selection of everything a field answers, to a depth: leaves, and objects whose fields need no
 * argument. Reading everything is what would show another account's data if any leaked.
 */
export function selectionOf(type: GraphQLOutputType, depth = 2): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!isObjectType(named)) return '{ __typename }';
  const parts: string[] = ['__typename'];
  for (const field of Object.values(named.getFields())) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) continue;
    const inner = getNamedType(field.type);
    if (isLeafType(inner)) parts.push(field.name);
    else if (depth > 0) parts.push(`${field.name} ${selectionOf(field.type, depth - 1)}`);
  }
  return `{ ${parts.join(' ')} }`;
}

/**
 * A document calling one field with the arguments given as variables of the same name; arguments
 * left out keep their defaults.
 */
export function documentFor(op: GraphqlOperation, given: Record<string, unknown>, selection = selectionOf(op.field.type)): string {
  const args = op.field.args.filter((arg) => given[arg.name] !== undefined);
  const definitions = args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const call = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `${op.operation} ${definitions ? `(${definitions})` : ''} { ${op.name}${call ? `(${call})` : ''} ${selection} }`;
}

export interface RestSlot {
  /** The parameter as the caller sends it; `:id` and `:jobId` for path parameters. */
  param: string;
  inPath: boolean;
  required: boolean;
  kind: IdKind | undefined;
}

export interface RestOperation {
  route: RestRoute;
  method: 'GET' | 'POST';
  /** `POST /member/:id/merge` */
  key: string;
  /** Every parameter the route reads, found by calling its variables() (path parameters excluded). */
  reads: string[];
  slots: RestSlot[];
  /** Set when the route's variables() could not be called with made-up values (the test then needs base parameters). */
  probeError?: string;
}

/** What kind of id a REST parameter holds; path ids take the kind from the path's first segment. */
export function restKind(route: RestRoute, param: string): IdKind | undefined {
  if (param === ':id') {
    const first = route.path.split('/')[1];
    return ({ member: 'member', brand: 'brand', brands: 'brand', segment: 'segment', activity: 'activity' } as Record<string, IdKind>)[first];
  }
  if (param === ':jobId') return 'presaveJob';
  // The audit log's `from` and `to` are times; its fan is `member`.
  if (route.path === '/account/audit') return param === 'member' ? 'member' : undefined;
  const byName: Record<string, IdKind> = {
    id: 'member',
    from: 'member',
    members: 'member',
    exclude_members: 'member',
    brandid: 'brand',
    segmentid: 'segment',
    segment: 'segment',
    members_from_segment: 'segment',
    activityid: 'activity',
    anyofactivities: 'activity',
    allofactivities: 'activity',
    recordid: 'record',
    member_service_id: 'service',
    serviceid: 'service',
    accesstoken: 'token',
  };
  return byName[param.toLowerCase()];
}

/** A value a reader accepts, for readers whose values are not free-form; undefined for the free-form ones. */
function madeUp(reader: (typeof readers)[number], option: unknown): string | undefined {
  switch (reader) {
    case 'boolean':
      return '0';
    case 'date':
      return '2000-01-01';
    case 'timestamp':
      return '2000-01-01 00:00:00';
    case 'jsonObject':
      return '{}';
    case 'limit':
      return '10';
    case 'period':
      return `1 ${(option as string[] | undefined)?.[0] ?? 'day'}`;
    case 'oneOf':
      return (option as string[])[0];
    case 'int': {
      // A bounded number (a flag, points) cannot hold an id: give it a value it accepts.
      const { min = 0, max = Number.MAX_SAFE_INTEGER } = (option ?? {}) as { min?: number; max?: number };
      return max < 2 ** 31 ? String(Math.max(min, 0)) : undefined;
    }
    default:
      return undefined;
  }
}

const readers = ['string', 'requiredString', 'verbatim', 'boolean', 'int', 'list', 'date', 'timestamp', 'period', 'jsonObject', 'limit', 'oneOf'] as const;

/**
 * Calls a route's variables() with every parameter it asks for made up on the spot (a distinct
 * number for the free-form ones), then finds which of them landed in an ID or token position of the
 * route's GraphQL document. `base` gives real values to parameters a route checks closely.
 */
export function probeRoute(schema: GraphQLSchema, route: RestRoute, base: Record<string, string> = {}): Omit<RestOperation, 'method' | 'key'> {
  const params = Params.of(base);
  const values = (params as unknown as { values: Map<string, string> }).values;
  const sentinels = new Map<string, string>();
  const required = new Set<string>();
  const read = new Set<string>();
  let next = 700_000_001;
  for (const reader of readers) {
    const original = (Params.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[reader];
    (params as unknown as Record<string, unknown>)[reader] = function (this: Params, name: string = 'limit', ...rest: unknown[]) {
      const key = name.toLowerCase();
      read.add(key);
      if (reader === 'requiredString') required.add(key);
      if (!values.has(key)) {
        const made = madeUp(reader, rest[0]);
        const value = made ?? String(next++);
        if (!made) sentinels.set(value, key);
        values.set(key, value);
      }
      return original.call(this, name, ...rest);
    };
  }
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const pathValues = Object.fromEntries(pathParams.map((name) => [name, String(next++)]));
  for (const [name, value] of Object.entries(pathValues)) sentinels.set(value, `:${name}`);
  const request = { params: pathValues, query: {}, body: {}, headers: {}, url: `/v1.1${route.path}`, protocol: 'http', host: 'localhost' } as unknown as FastifyRequest;

  let variables: Record<string, unknown>;
  try {
    variables = route.variables(params, request);
  } catch (error) {
    return { route, reads: [...read], slots: [], probeError: (error as Error).message };
  }

  // Each variable's declared type, so a value's position can be told an ID (or a token) or not.
  const operation = (route.document as DocumentNode).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const declared = new Map(operation?.variableDefinitions?.map((d) => [d.variable.name.value, typeFromAST(schema, d.type as never) as GraphQLInputType]) ?? []);
  const found = new Map<string, RestSlot>();
  const visit = (value: unknown, type: GraphQLInputType | undefined, name: string) => {
    if (value === undefined || value === null || !type) return;
    const inner = getNullableType<NullableInputType>(type);
    if (isListType(inner)) {
      if (Array.isArray(value)) for (const item of value) visit(item, inner.ofType, name);
      return;
    }
    const named = getNamedType(inner);
    if (isInputObjectType(named) && typeof value === 'object') {
      const fields = named.getFields();
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) visit(item, fields[key]?.type, key);
      return;
    }
    const param = typeof value === 'string' || typeof value === 'number' ? sentinels.get(String(value)) : undefined;
    if (param && (named.name === 'ID' || (named.name === 'String' && isTokenName(name)))) {
      found.set(param, { param, inPath: param.startsWith(':'), required: param.startsWith(':') || required.has(param), kind: restKind(route, param) });
    }
  };
  for (const [name, value] of Object.entries(variables)) visit(value, declared.get(name), name);
  return { route, reads: [...read], slots: [...found.values()] };
}

export function restOperations(schema: GraphQLSchema, routes: readonly RestRoute[], bases: Record<string, Record<string, string>> = {}): RestOperation[] {
  return routes.flatMap((route) =>
    route.methods.map((method) => {
      const key = `${method} ${route.path}`;
      return { ...probeRoute(schema, route, bases[key] ?? bases[route.path]), method, key };
    }),
  );
}
