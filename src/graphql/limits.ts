import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { ApolloServerPlugin } from '@apollo/server';
import { separateOperations, type GraphQLError, type GraphQLSchema, type ValidationContext, type ValidationRule } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Config } from '../config.js';
import type { Context } from './context.js';
import { AppError } from './errors.js';

export type Limits = Config['graphqlLimits'];

/**
 * graphql-armor throws its rejection out of the validator by default, which Apollo reports as an
 * internal error; reporting it on the validation context makes it an ordinary validation failure.
 */
const reportOnContext = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/** Depth and alias limits: static, so they run as validation rules, once per document. */
export function limitRules(limits: Limits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, exposeLimits: true, ...reportOnContext }),
    maxAliasesRule({ n: limits.maxAliases, exposeLimits: true, ...reportOnContext }),
  ];
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

/** The cost limit needs the variables (page sizes), so it runs once the operation is resolved. */
export function costLimitPlugin(schema: GraphQLSchema, limits: Limits): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operationName }) {
          const query = operationName ? separateOperations(document)[operationName] ?? document : document;
          const cost = operationCost(schema, query, request.variables ?? {});
          if (cost > limits.maxCost) {
            throw new AppError('INVALID_PARAMETER', `The query costs ${cost}, above the limit of ${limits.maxCost}: ask for fewer items or fields.`, null);
          }
        },
      };
    },
  };
}
