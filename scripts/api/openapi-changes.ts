import type { ApiChange } from './api-changes.js';

/**
 * The changes between two OpenAPI 3.1 documents of the /v1.1 interface that a client of the older
 * one would feel, with the rules graphql-inspector applies to a schema (the maintained OpenAPI
 * diff tools on the npm registry read OpenAPI 3.0 only):
 * - breaking: an operation or a response status gone; a parameter or body property gone, newly
 *   required, of another type, or allowing fewer values (an enum value gone, a bound tightened);
 *   an answered property gone or of another type;
 * - not breaking: anything added that a client need not send, an answered property added, a
 *   description changed.
 */
type Json = Record<string, unknown>;

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
/** How deep answered schemas are compared (the documents' schemas nest a few levels; refs may cycle). */
const maxDepth = 8;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown, key: string): Json => (isObject(value) && isObject(value[key]) ? value[key] : {});

export function openApiChanges(before: unknown, after: unknown): ApiChange[] {
  const changes: ApiChange[] = [];
  const resolve =
    (document: unknown) =>
    (schema: unknown): Json => {
      let resolved = isObject(schema) ? schema : {};
      for (let hops = 0; typeof resolved.$ref === 'string' && hops < 10; hops += 1) {
        const name = resolved.$ref.replace('#/components/schemas/', '');
        resolved = objectAt(objectAt(objectAt(document, 'components'), 'schemas'), name);
      }
      return resolved;
    };
  const old = resolve(before);
  const now = resolve(after);
  const breaking = (coordinate: string, message: string) => changes.push({ api: 'rest', breaking: true, coordinate, message });

  /** What a client sends: it must still be accepted. */
  const compareInput = (coordinate: string, what: string, was: Json, is: Json) => {
    if (was.type !== undefined && JSON.stringify(was.type) !== JSON.stringify(is.type)) breaking(coordinate, `${what} changed type from ${JSON.stringify(was.type)} to ${JSON.stringify(is.type)}`);
    if (Array.isArray(was.enum)) {
      const allowed = new Set(Array.isArray(is.enum) ? is.enum : was.enum);
      for (const value of was.enum) if (!allowed.has(value)) breaking(coordinate, `${what} no longer takes ${JSON.stringify(value)}`);
    } else if (Array.isArray(is.enum)) breaking(coordinate, `${what} takes only ${JSON.stringify(is.enum)} now`);
    for (const bound of ['minimum', 'minLength', 'minItems'] as const) {
      if (typeof is[bound] === 'number' && (typeof was[bound] !== 'number' || is[bound] > was[bound])) breaking(coordinate, `${what}'s ${bound} rose to ${is[bound]}`);
    }
    for (const bound of ['maximum', 'maxLength', 'maxItems'] as const) {
      if (typeof is[bound] === 'number' && (typeof was[bound] !== 'number' || is[bound] < was[bound])) breaking(coordinate, `${what}'s ${bound} fell to ${is[bound]}`);
    }
  };

  /** What a client reads: every property it read is still there, of the same type. */
  const compareOutput = (coordinate: string, what: string, wasSchema: unknown, isSchema: unknown, depth: number) => {
    const was = old(wasSchema);
    const is = now(isSchema);
    if (depth > maxDepth) return;
    if (was.type !== undefined && JSON.stringify(was.type) !== JSON.stringify(is.type)) {
      breaking(coordinate, `${what} changed type from ${JSON.stringify(was.type)} to ${JSON.stringify(is.type)}`);
      return;
    }
    const properties = objectAt(is, 'properties');
    for (const [name, property] of Object.entries(objectAt(was, 'properties'))) {
      if (!(name in properties)) breaking(coordinate, `${what} no longer answers ${name}`);
      else compareOutput(coordinate, `${what}.${name}`, property, properties[name], depth + 1);
    }
    if (was.items !== undefined) compareOutput(coordinate, `${what}[]`, was.items, is.items, depth + 1);
  };

  const wasPaths = objectAt(before, 'paths');
  const isPaths = objectAt(after, 'paths');
  for (const [path, wasItem] of Object.entries(wasPaths)) {
    for (const method of methods) {
      const wasOperation = objectAt(wasItem, method);
      if (!Object.keys(wasOperation).length) continue;
      const coordinate = `${method.toUpperCase()} ${path}`;
      const isOperation = objectAt(isPaths[path], method);
      if (!Object.keys(isOperation).length) {
        breaking(coordinate, 'the operation was removed');
        continue;
      }
      compareParameters(coordinate, wasOperation, isOperation);
      const wasResponses = objectAt(wasOperation, 'responses');
      const isResponses = objectAt(isOperation, 'responses');
      for (const [status, response] of Object.entries(wasResponses)) {
        if (!(status in isResponses)) breaking(coordinate, `the ${status} response was removed`);
        else compareOutput(coordinate, `the ${status} answer`, jsonSchemaOf(response), jsonSchemaOf(isResponses[status]), 0);
      }
    }
  }
  return changes;

  function compareParameters(coordinate: string, wasOperation: Json, isOperation: Json) {
    const wasInputs = inputsOf(wasOperation, old);
    const isInputs = inputsOf(isOperation, now);
    for (const [name, input] of isInputs) {
      const was = wasInputs.get(name);
      if (!was) {
        if (input.required) breaking(coordinate, `the new parameter ${name} is required`);
      } else if (input.required && !was.required) breaking(coordinate, `the parameter ${name} became required`);
    }
    for (const [name, was] of wasInputs) {
      const input = isInputs.get(name);
      if (!input) breaking(coordinate, `the parameter ${name} was removed`);
      else compareInput(coordinate, `the parameter ${name}`, was.schema, input.schema);
    }
  }
}

/** An operation's parameters and JSON body properties by name (`query:email`, `body:email`). */
function inputsOf(operation: Json, resolve: (schema: unknown) => Json): Map<string, { required: boolean; schema: Json }> {
  const inputs = new Map<string, { required: boolean; schema: Json }>();
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    if (isObject(parameter)) inputs.set(`${String(parameter.in)}:${String(parameter.name)}`, { required: parameter.required === true, schema: resolve(parameter.schema) });
  }
  const body = resolve(jsonSchemaOf(operation.requestBody));
  const required = new Set(Array.isArray(body.required) ? body.required : []);
  for (const [name, schema] of Object.entries(objectAt(body, 'properties'))) inputs.set(`body:${name}`, { required: required.has(name), schema: resolve(schema) });
  return inputs;
}

/** The JSON schema of a request body or response. */
function jsonSchemaOf(part: unknown): unknown {
  return objectAt(objectAt(objectAt(part, 'content'), 'application/json'), 'schema');
}
