import {
  execute,
  getOperationAST,
  GraphQLError,
  isInputType,
  OperationTypeNode,
  typeFromAST,
  valueFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * A document answered by a statement that builds its response (see scoring/listing-json.ts): asked
 * for each repeated document once; its answer may still decline a request (undefined), which then
 * runs as any other.
 */
export type SqlAnswer = (contextValue: never, variables: Record<string, unknown> | undefined) => Promise<ExecutionResult | undefined>;
export type SqlAnswerPlanner = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode) => SqlAnswer | undefined;

/**
 * A result without `data` is a request whose execution never started: its variables did not
 * coerce to the operation's types. Those errors are the caller's, and are marked as Apollo marks
 * them when it executes itself (BAD_USER_INPUT, HTTP 400); left bare, the error formatting would
 * take them for internal ones. The cost limit (graphql/limits.ts) leaves such variables to
 * execution rather than coercing every request's variables a second time.
 */
export function markedRequestErrors(result: ExecutionResult): ExecutionResult {
  if ('data' in result || !result.errors?.length) return result;
  return {
    errors: result.errors.map(
      (error) =>
        new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError,
          extensions: { ...error.extensions, code: 'BAD_USER_INPUT', http: { status: 400 } },
        }),
    ),
  };
}

/** The answer of the first planner that takes the document, if any. */
export function planAnswer(planners: readonly SqlAnswerPlanner[], schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): SqlAnswer | undefined {
  for (const plan of planners) {
    const answer = plan(schema, document, operation);
    if (answer) return answer;
  }
  return undefined;
}

/** What a repeated document runs as: its compiled function, and the statement that may answer it whole. */
interface Compiled {
  query: CompiledQuery | undefined;
  answer: SqlAnswer | undefined;
}

/**
 * Executes documents that repeat as compiled functions (graphql-jit): the document is turned into
 * JavaScript once, and each request then runs that function instead of walking the document again
 * field by field. The result is the one graphql-js would give (the same resolvers, null
 * propagation and errors, which Apollo and the REST layer format as before).
 *
 * Only queries are compiled; mutations and anything the compiler refuses run through graphql-js.
 * A document is compiled on its second use, so one-off documents never pay the compilation.
 */
export class CompiledDocuments {
  /** Per document key: the uses so far, or what it runs as. Least recently used first. */
  private readonly entries = new Map<string, number | Compiled>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly options: { compileOnUse: number; maxEntries: number; answers?: readonly SqlAnswerPlanner[] } = { compileOnUse: 2, maxEntries: 500 },
  ) {}

  /**
   * Runs a validated document. `key` names the document and operation (a hash of the source and the
   * operation name): equal keys must mean equal documents.
   */
  execute(args: {
    key: string;
    document: DocumentNode;
    operation: OperationDefinitionNode | undefined;
    operationName: string | undefined;
    contextValue: unknown;
    variableValues: Record<string, unknown> | undefined;
  }): Promise<ExecutionResult> | ExecutionResult {
    const compiled = args.operation?.operation === OperationTypeNode.QUERY ? this.lookup(args.key, args.document, args.operation, args.operationName) : undefined;
    if (compiled?.answer) return this.answered(compiled, args);
    if (compiled?.query) return compiled.query.query(undefined, args.contextValue, args.variableValues ?? {});
    return this.executed(args);
  }

  private async answered(compiled: Compiled, args: Parameters<CompiledDocuments['execute']>[0]): Promise<ExecutionResult> {
    const answer = await compiled.answer!(args.contextValue as never, args.variableValues);
    if (answer) return answer;
    return compiled.query ? compiled.query.query(undefined, args.contextValue, args.variableValues ?? {}) : this.executed(args);
  }

  private executed(args: Parameters<CompiledDocuments['execute']>[0]): Promise<ExecutionResult> | ExecutionResult {
    return execute({
      schema: this.schema,
      document: args.document,
      operationName: args.operationName,
      contextValue: args.contextValue,
      variableValues: args.variableValues,
    });
  }

  private lookup(key: string, document: DocumentNode, operation: OperationDefinitionNode, operationName: string | undefined): Compiled | undefined {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry !== undefined && typeof entry !== 'number') {
      this.entries.set(key, entry); // most recently used last
      return entry;
    }
    const uses = (entry ?? 0) + 1;
    if (uses < this.options.compileOnUse) {
      this.remember(key, uses);
      return undefined;
    }
    const compiled: Compiled = {
      query: compileDocument(this.schema, document, operationName),
      answer: planAnswer(this.options.answers ?? [], this.schema, document, operation),
    };
    this.remember(key, compiled);
    return compiled;
  }

  private remember(key: string, value: number | Compiled): void {
    this.entries.set(key, value);
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** A compiled query, or undefined when graphql-jit cannot compile the document (graphql-js runs it then). */
export function compileDocument(schema: GraphQLSchema, document: DocumentNode, operationName?: string): CompiledQuery | undefined {
  let compiled;
  try {
    compiled = compileQuery(schema, document, operationName);
  } catch {
    return undefined;
  }
  if (!isCompiledQuery(compiled)) return undefined;
  const defaults = variableDefaults(schema, document, operationName);
  if (defaults.length) {
    // graphql-jit refuses a non-null variable left out even when the operation gives it a default
    // (`$sort: SortDirection! = DESC`), where graphql-js uses the default: it is filled in first.
    const query = compiled.query.bind(compiled);
    compiled.query = (root, context, variables) => query(root, context, withDefaults(variables, defaults));
  }
  return compiled;
}

/** The operation's variables that have a default value, with the value as graphql-js would coerce it. */
function variableDefaults(schema: GraphQLSchema, document: DocumentNode, operationName?: string): [string, unknown][] {
  const operation = getOperationAST(document, operationName);
  return (operation?.variableDefinitions ?? []).flatMap((definition) => {
    if (!definition.defaultValue) return [];
    const type = typeFromAST(schema, definition.type);
    return type && isInputType(type) ? [[definition.variable.name.value, valueFromAST(definition.defaultValue, type)] as [string, unknown]] : [];
  });
}

function withDefaults(variables: Record<string, unknown> | null | undefined, defaults: readonly [string, unknown][]): Record<string, unknown> {
  const filled = { ...variables };
  for (const [name, value] of defaults) if (filled[name] === undefined) filled[name] = value;
  return filled;
}
