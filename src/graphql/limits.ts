import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  GraphQLError,
  getVariableValues,
  Kind,
  OperationTypeNode,
  separateOperations,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
  type ValidationContext,
  visit,
  type ValidationRule,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Config } from '../config.js';
import type { Context } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { currentRequestStatements } from '../db/roundtrips.js';
import { listTooLong, maxListItems } from '../core/list-limits.js';
import type { HeavyRequests } from './heavy-requests.js';

export type Limits = Config['graphqlLimits'];

/**
 * graphql-armor throws its rejection out of the validator by default, which Apollo reports as an
 * internal error; reporting it on the validation context makes it an ordinary validation failure.
 */
const reportOnContext = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/** Depth, alias and definition-count limits: static, so they run as validation rules, once per document. */
export function limitRules(limits: Limits): ValidationRule[] {
  return [
    maxDefinitionsRule(limits.maxOperations),
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, exposeLimits: true, ...reportOnContext }),
    maxAliasesRule({ n: limits.maxAliases, exposeLimits: true, ...reportOnContext }),
  ];
}

/**
 * A document may define only so many operations and fragments: every other rule walks each of
 * them, so thousands of small operations would cost validation time even below the token limit.
 */
function maxDefinitionsRule(max: number): ValidationRule {
  return (context) => {
    const count = context.getDocument().definitions.length;
    if (count > max) {
      context.reportError(new GraphQLError(`The document defines ${count} operations and fragments; at most ${max} are allowed.`));
    }
    return {};
  };
}

/** The parser stops at this many tokens, so an oversized document costs no more than the limit. */
export function parseOptions(limits: Limits) {
  return { maxTokens: limits.maxTokens };
}

/**
 * A list field costs its page size times what each item selects, so `members(first: 1000)` with
 * nested lists is priced as the work it causes, not as one field.
 */
const pageSizeEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const size = typeof args.first === 'number' ? args.first : typeof args.limit === 'number' ? args.limit : undefined;
  return size === undefined ? undefined : 1 + Math.max(childComplexity, 1) * size;
};

export function operationCost(schema: GraphQLSchema, query: Parameters<typeof getComplexity>[0]['query'], variables: Record<string, unknown>) {
  return getComplexity({
    schema,
    query,
    variables,
    estimators: [fieldExtensionsEstimator(), pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })],
  });
}

/** An error in the request's variables or operation: the caller's to fix (400, code 4). */
function requestError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/**
 * The operation's cost. The estimator coerces the variables to the operation's types (execution
 * does the same later), and the GraphQLError it throws for a wrong or missing variable is the
 * caller's error, reported as such rather than as an internal one. With `variablesToExecution`,
 * wrong variables are left to execution instead, which refuses them before any resolver runs:
 * the cost is then undefined.
 */
function costOf(schema: GraphQLSchema, operation: OperationDefinitionNode, query: DocumentNode, variables: Record<string, unknown>, variablesToExecution: boolean): number | undefined {
  try {
    return operationCost(schema, query, variables);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    if (variablesToExecution && getVariableValues(schema, operation.variableDefinitions ?? [], variables).errors?.length) return undefined;
    throw requestError(error.message);
  }
}

/**
 * Whether execution coerces the operation's variables by graphql-js's rules. Mutations run through
 * graphql-js (graphql/execution.ts), which refuses wrong variables before any resolver runs
 * (markedRequestErrors makes them the caller's errors), so the cost limit need not coerce them a
 * second time: a batch of a thousand records was coerced twice a request. Repeated queries may run
 * compiled by graphql-jit, whose coercion is not graphql-js's (it lets a @oneOf input with two
 * fields through), so their variables are coerced here on every request.
 */
const coercedByExecution = (operation: OperationDefinitionNode) => operation.operation === OperationTypeNode.MUTATION;

/**
 * Costs of the operations seen lately. Working a cost out walks the whole document, which for a
 * small query cost more than running it; the same document costs the same again unless a variable
 * the estimators read changes. They read page sizes (`first`, `limit`: Int) and `@include`/`@skip`
 * conditions (Boolean) and nothing else, so a cost is kept per document, operation and the values
 * of its Int and Boolean variables: `member(id: $id)` is priced once, whatever the member, and so
 * is a batch of records, whatever its input (keyed by the whole input, each batch was priced again,
 * coercing its thousand items once more, and kept under a key as long as the batch).
 */
const costCacheSize = 1000;

export function costKey(queryHash: string, operationName: string | null, operation: OperationDefinitionNode, variables: Record<string, unknown>): string {
  const priced: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const type = namedType(definition.type);
    if (type === 'Int' || type === 'Boolean') priced[definition.variable.name.value] = variables[definition.variable.name.value];
  }
  return `${queryHash}:${operationName ?? ''}:${JSON.stringify(priced)}`;
}

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}

/** The error of an operation that costs more than the limit (none when it does not): for POST and WebSocket alike. */
export function costRefusal(cost: number, limits: Limits): AppError | undefined {
  if (cost <= limits.maxCost) return undefined;
  return new AppError('INVALID_PARAMETER', `The query costs ${cost}, above the limit of ${limits.maxCost}: ask for fewer items or fields.`, null);
}

/**
 * The first list of the request longer than `maxListItems` (core/list-limits.ts), written in the
 * document or sent in the variables, as the refusal naming its argument or input field (or, for a
 * variable that is itself the list, the variable). Checked before the variables are coerced or
 * priced: coercing 70,000 ids, or sending them as as many statement parameters, is the cost the
 * limit is there to spare.
 */
export function listLengthRefusal(document: DocumentNode, variables: Record<string, unknown>): AppError | undefined {
  return documentListRefusal(document) ?? variableListRefusal(variables);
}

/** A list written in the document longer than the limit: the same for every request of the document. */
function documentListRefusal(document: DocumentNode): AppError | undefined {
  let refusal: AppError | undefined;
  visit(document, {
    enter(node) {
      if (refusal) return false;
      if ((node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) && node.value.kind === Kind.LIST && node.value.values.length > maxListItems) {
        refusal = listTooLong(node.name.value, node.value.values.length);
      }
      return undefined;
    },
  });
  return refusal;
}

/** A list sent in the variables longer than the limit, named by its input field (or its variable). */
function variableListRefusal(variables: Record<string, unknown>): AppError | undefined {
  // Iterative, so a deeply nested variable cannot exhaust the stack; each value is visited once.
  const pending: { value: unknown; name: string }[] = Object.entries(variables).map(([name, value]) => ({ value, name }));
  while (pending.length) {
    const { value, name } = pending.pop()!;
    if (Array.isArray(value)) {
      if (value.length > maxListItems) return listTooLong(name, value.length);
      for (const item of value) if (item && typeof item === 'object') pending.push({ value: item, name });
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) if (item && typeof item === 'object') pending.push({ value: item, name: key });
    }
  }
  return undefined;
}

/**
 * The cost limit needs the variables (page sizes), so it runs once the operation is resolved; a
 * heavy operation then waits for one of its key's heavy slots (heavy-requests.ts), given back when
 * the response is sent.
 */
export function costLimitPlugin(schema: GraphQLSchema, limits: Limits, heavy?: HeavyRequests): ApolloServerPlugin<Context> {
  return costLimit<Context>(schema, limits, heavy && ((context, cost, signal) => heavy.admit(context.caller, cost, signal)));
}

/**
 * The cost limit for any server's context: `admit`, when given, holds a heavy operation until the
 * caller may run it (the public API's heavy slots); the console, which has none, passes nothing.
 */
export function costLimit<T extends BaseContext>(schema: GraphQLSchema, limits: Limits, admit?: (context: T, cost: number, signal?: AbortSignal) => Promise<() => void>): ApolloServerPlugin<T> {
  const costs = new Map<string, number>();
  return {
    async requestDidStart() {
      let release: (() => void) | undefined;
      return {
        async willSendResponse() {
          release?.();
        },
        async didResolveOperation({ request, document, operationName, operation, queryHash, contextValue }) {
          if (!operation) return; // Apollo has already refused a document without this operation
          if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
            throw requestError('Subscriptions run over WebSocket at /graphql (the graphql-ws protocol); POST and GET answer queries and mutations.');
          }
          const variables = request.variables ?? {};
          const tooLong = variableListRefusal(variables);
          if (tooLong) throw tooLong;
          const key = costKey(queryHash, operationName, operation, variables);
          let cost = costs.get(key);
          if (cost === undefined) {
            // The document's own lists, once per document: a priced document has passed them.
            const literal = documentListRefusal(document);
            if (literal) throw literal;
            const query = operationName ? (separateOperations(document)[operationName] ?? document) : document;
            cost = costOf(schema, operation, query, variables, coercedByExecution(operation));
            if (cost === undefined) return; // execution refuses the variables
            costs.set(key, cost);
            if (costs.size > costCacheSize) costs.delete(costs.keys().next().value!);
          } else if (!coercedByExecution(operation)) {
            // The variables are still checked on every request, as working the cost out did: a wrong
            // or missing variable is the caller's error (the last one found, as the estimator reports it).
            const { errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
            if (errors?.length) throw requestError(errors[errors.length - 1].message);
          }
          const refusal = costRefusal(cost, limits);
          if (refusal) throw refusal;
          if (admit && contextValue) release = await admit(contextValue, cost, currentRequestStatements()?.signal);
        },
      };
    },
  };
}
