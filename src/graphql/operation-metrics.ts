import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Counter, Histogram } from 'prom-client';
import type { Context } from '../core/context.js';
import { classifyError } from '../core/errors.js';

export interface OperationMetrics {
  graphqlOperations: Counter<'operation' | 'type' | 'outcome'>;
  graphqlDuration: Histogram<'operation' | 'type'>;
  errors: Counter<'surface' | 'code'>;
}

/**
 * The operation names /metrics labels series with. Names are the client's choice, so the set is
 * bounded: the names of the documents the gateway itself knows (the REST layer's), then the first
 * `moreNames` others seen since start; anything later is `other`, an unnamed operation `anonymous`,
 * a request that failed before its operation was known `invalid`.
 */
export class OperationNames {
  private readonly seen = new Set<string>();

  constructor(
    private readonly known: ReadonlySet<string>,
    private readonly moreNames = 100,
  ) {}

  label(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (this.known.has(name) || this.seen.has(name)) return name;
    // A GraphQL name is [_A-Za-z][_0-9A-Za-z]*; a long one is not worth a series.
    if (name.length > 64 || this.seen.size >= this.moreNames) return 'other';
    this.seen.add(name);
    return name;
  }
}

/** Counts and times each /graphql operation by name and type, and its errors by code (core/errors.ts). */
export function operationMetricsPlugin(metrics: OperationMetrics, names: OperationNames): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const started = performance.now();
      let operation = 'invalid';
      let type = 'unknown';
      let failed = false;
      return {
        async didResolveOperation(request) {
          operation = names.label(request.operationName);
          type = request.operation?.operation ?? 'unknown';
        },
        async didEncounterErrors({ errors }) {
          failed = true;
          for (const error of errors) {
            const { code } = classifyError(unwrapResolverError(error), { surface: 'graphql' });
            metrics.errors.inc({ surface: 'graphql', code });
          }
        },
        async willSendResponse() {
          metrics.graphqlOperations.inc({ operation, type, outcome: failed ? 'error' : 'ok' });
          metrics.graphqlDuration.observe({ operation, type }, (performance.now() - started) / 1000);
        },
      };
    },
  };
}
