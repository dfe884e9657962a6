import 'reflect-metadata';
import { createPubSub } from '@graphql-yoga/subscription';
import { isObjectType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage, type ContainerType } from 'type-graphql';
import { authChecker } from '../core/auth.js';
import { markOneOfInputs } from '../core/one-of.js';
import { resolvers } from './resolvers.js';

let built: Promise<GraphQLSchema> | undefined;

/** A type-graphql container making one instance of each resolver class, kept in `instances`. */
export function singleInstances(instances = new Map<new () => object, object>()): ContainerType {
  return {
    get(someClass: new () => object) {
      let instance = instances.get(someClass);
      if (!instance) instances.set(someClass, (instance = new someClass()));
      return instance;
    },
  };
}

/** One instance per resolver class, for type-graphql and for the direct field resolvers below alike. */
const instances = new Map<new () => object, object>();
const container = singleInstances(instances);

/**
 * The one schema of the product, built from the type-graphql classes. Building is pure, so the
 * result is shared by every server in the process (tests start many).
 */
export function getSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers,
    authChecker,
    container,
    // Inputs are validated by the services, which know the REST parameter names to report.
    validate: false,
    // Fields are nullable only where declared: a missing value is a bug, not a null.
    nullableByDefault: false,
    // type-graphql asks for a PubSub once there is a subscription; activityRecorded names its own
    // source instead (the gateway's live feed, from the context), so this one carries nothing.
    pubSub: createPubSub(),
  }).then((schema) => withDirectFieldResolvers(withPlainFieldsRead(withRootDescriptions(markOneOfInputs(schema)))));
  return built;
}

/** type-graphql names the root types but takes no description for them: the explorer shows these. */
const rootDescriptions = {
  Query: "Reads: call with an application's API key; a member JWT reads viewer and viewerSessions only, and the account's global key usage only.",
  Mutation: "Writes: call with an application's API key; some need an advanced or enterprise plan. A member JWT calls the viewer mutations only (its own member).",
  Subscription: "Live events, over graphql-ws at /graphql: call with an application's API key.",
};

function withRootDescriptions(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (type) type.description = rootDescriptions[type.name as keyof typeof rootDescriptions];
  }
  return schema;
}

/**
 * type-graphql gives every plain field (a property, no field resolver) a resolver that runs the
 * field's middlewares and access check and then reads the property. A field with neither gets
 * GraphQL's own property read instead: the same value, without a function call and an object per
 * field of every response, and a compiled document (execution.ts) reads it inline. Fields with
 * `@Authorized`, middlewares, a field resolver or a schema name other than the property keep theirs.
 */
function withPlainFieldsRead(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const field of objectType.fields ?? []) {
      const resolved = storage.fieldResolvers.some((resolver) => resolver.schemaName === field.schemaName && isSameOrSubclass(objectType.target, resolver.getObjectType?.()));
      const guarded = field.roles !== undefined || (field.middlewares?.length ?? 0) > 0;
      const schemaField = fields[field.schemaName];
      if (!schemaField || resolved || guarded || field.name !== field.schemaName) continue;
      schemaField.resolve = undefined;
    }
  }
  return schema;
}

/** Where a direct field resolver takes each parameter from: root, args, context or info. */
const argumentPosition = { root: 0, context: 2, info: 3 } as const;

/**
 * A field resolver method (`@FieldResolver` in a resolver class) runs, through type-graphql, behind
 * a wrapper that looks up the class instance, sorts and maps the parameter list, converts
 * arguments and walks the (empty) middleware chain on every call: on a page of 100 members, for
 * every member and every such field. A field resolver without `@Authorized`, middlewares or
 * arguments, whose parameters are `@Root()`, `@Ctx()` and `@Info()` as they are, or a parameter
 * decorator's value (`@CurrentApplication()`, core/auth.ts), is called directly instead, on the same
 * instance, with the same parameters. Anything else keeps type-graphql's.
 */
function withDirectFieldResolvers(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  for (const resolver of storage.fieldResolvers) {
    if (resolver.kind !== 'external' || !resolvers.includes(resolver.target)) continue;
    if (resolver.roles !== undefined || (resolver.middlewares?.length ?? 0) > 0) continue;
    const params = [...(resolver.params ?? [])].sort((a, b) => a.index - b.index);
    const plain = params.every(
      (param, index) =>
        param.index === index &&
        ((param.kind === 'root' && !param.propertyName && !param.getType) || (param.kind === 'context' && !param.propertyName) || param.kind === 'info' || (param.kind === 'custom' && !param.options.arg)),
    );
    const objectType = storage.objectTypes.find((candidate) => candidate.target === resolver.getObjectType?.());
    const type = objectType && schema.getType(objectType.name);
    const field = isObjectType(type) ? type.getFields()[resolver.schemaName] : undefined;
    if (!plain || !field || field.args.length > 0) continue;
    const instance = container.get(resolver.target, undefined as never) as Record<string, (...args: unknown[]) => unknown>;
    const method = instance[resolver.methodName];
    if (typeof method !== 'function') continue;
    if (params.some((param) => param.kind === 'custom')) {
      field.resolve = customParamsResolver(
        instance,
        method,
        params.map((param) => (param.kind === 'custom' ? param.resolver : argumentPosition[param.kind as keyof typeof argumentPosition])),
      );
      continue;
    }
    const positions = params.map((param) => argumentPosition[param.kind as keyof typeof argumentPosition]);
    field.resolve = directResolver(instance, method, positions);
  }
  return schema;
}

function directResolver(instance: object, method: (...args: unknown[]) => unknown, positions: number[]): GraphQLFieldResolver<unknown, unknown> {
  const [first, second, third] = positions;
  if (positions.length === 2 && first === 0 && second === 2) return (root, _args, context) => method.call(instance, root, context);
  if (positions.length === 3 && first === 0 && second === 2 && third === 3) return (root, _args, context, info) => method.call(instance, root, context, info);
  return (...all: unknown[]) =>
    method.apply(
      instance,
      positions.map((position) => all[position]),
    );
}

type ParamSource = number | ((data: { root: unknown; args: Record<string, unknown>; context: unknown; info: GraphQLResolveInfo }) => unknown);

/** A direct resolver with parameter decorators among its parameters: each decorator's value, as type-graphql gives it. */
function customParamsResolver(instance: object, method: (...args: unknown[]) => unknown, sources: ParamSource[]): GraphQLFieldResolver<unknown, unknown, Record<string, unknown>> {
  return (root, args, context, info) => {
    const all = [root, args, context, info];
    const values = sources.map((source) => (typeof source === 'number' ? all[source] : source({ root, args, context, info })));
    if (values.some((value) => value instanceof Promise)) return Promise.all(values).then((settled) => method.apply(instance, settled));
    return method.apply(instance, values);
  };
}

/** A class as type-graphql's metadata holds it (an object type's target, a resolver's object type). */
type MetadataClass = ReturnType<typeof getMetadataStorage>['objectTypes'][number]['target'];

function isSameOrSubclass(target: MetadataClass, candidate: MetadataClass | undefined): boolean {
  return candidate !== undefined && (target === candidate || target.prototype instanceof candidate || candidate.prototype instanceof target);
}
