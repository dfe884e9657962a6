import { errorCatalogue, type ErrorCode } from '../../core/errors.js';
import { planOf } from '../plans.js';
import type { RestRoute } from '../route.js';
import { discoverParameters, type DiscoveredParameter, type ParameterRead } from './parameters.js';
import { errorSchema, responseSchemas } from './schemas.js';

/**
 * The OpenAPI 3.1 document of `/v1.1`, built from the route table: each route's methods, path,
 * description and response schema, and the parameters its `variables` function reads (see
 * parameters.ts). Built once per route table; the gateway serves it at `/v1.1/openapi.json`.
 */

type Schema = Record<string, unknown>;

const documented = new WeakMap<readonly RestRoute[], Schema>();

export function openApiDocument(routes: readonly RestRoute[]): Schema {
  let document = documented.get(routes);
  if (!document) documented.set(routes, (document = buildDocument(routes)));
  return document;
}

const introduction = `The member-engagement interface, version 1.1.

- **Key:** every operation takes the application's API key: the \`apiKey\` parameter, an \`x-api-key\` header, or \`Authorization: Bearer <key>\`.
- **Parameters** come from the query string, a form body or a JSON body (the query string wins on a clash); names match in any case; unknown names are ignored, except on brand create and edit, which take them as custom fields (refused with code 12 until switched on). POST operations take the same parameters in a body as in the query string.
- **Booleans** are \`1\`/\`0\` (\`true\`/\`false\`, \`yes\`/\`no\`, \`on\`/\`off\` are read too, any case); anything else is refused (code 4), never read as off.
- **Lists** are comma separated. **Times** are \`YYYY-MM-DD HH:MM:SS\` in UTC; a period is \`<n> <unit>\`, such as \`2 weeks\`.
- **Errors** answer the error body below with the HTTP status of their name; the key is checked first, then the parameters, so a refused call changes nothing.`;

function buildDocument(routes: readonly RestRoute[]): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    // The type asks for one; this catches an empty one, or a route built around defineRoute.
    if (typeof route.description !== 'string' || route.description.trim().length < 10) {
      throw new Error(`REST route ${route.methods.join('/')} ${route.path} has no description: give defineRoute one (what the operation does).`);
    }
    const parameters = discoverParameters(route);
    const openApiPath = `/v1.1${route.path.replace(/:(\w+)/g, '{$1}')}`;
    const item = (paths[openApiPath] ??= {});
    for (const method of route.methods) item[method.toLowerCase()] = operation(route, method, parameters);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Marquee REST interface', version: '1.1', description: `${introduction}\n\n${errorTable()}` },
    servers: [{ url: '/', description: 'this gateway' }],
    security: [{ apiKey: [] }, { apiKeyHeader: [] }, { bearerKey: [] }],
    tags: tagsOf(routes),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'query', name: 'apiKey', description: 'The application key as a parameter (any case; a body parameter works too).' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearerKey: { type: 'http', scheme: 'bearer', description: 'The application key, or a member JWT where an operation takes one.' },
      },
      schemas: { ...responseSchemas, Error: errorSchema },
      responses: errorResponses(),
    },
  };
}

const tagOf = (route: RestRoute) => route.path.split('/')[1];

function tagsOf(routes: readonly RestRoute[]) {
  return [...new Set(routes.map(tagOf))].map((name) => ({ name }));
}

/** `GET /brand/:id/stats/activity` → `getBrandIdStatsActivity` */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

/** The first sentence of the description. */
function summaryOf(description: string): string {
  const match = /^[\s\S]*?[.:](?=\s|$)/.exec(description.trim());
  return (match ? match[0] : description).replace(/[.:]$/, '').replace(/\s+/g, ' ').trim();
}

function operation(route: RestRoute, method: string, parameters: DiscoveredParameter[]): Schema {
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const plan = planOf(route.document);
  const planNote = plan ? `\n\nNeeds the ${plan} plan (code 9 otherwise).` : '';
  const operation: Schema = {
    operationId: operationId(method, route.path),
    summary: summaryOf(route.description),
    description: route.description + planNote,
    tags: [tagOf(route)],
    parameters: parameters.map(parameterObject),
    responses: {
      200: {
        description: 'Success',
        content: { 'application/json': { schema: route.response ? { $ref: `#/components/schemas/${route.response}` } : {} } },
      },
      ...Object.fromEntries(errorStatuses().map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }])),
    },
  };
  if (plan) operation['x-plan'] = plan;
  if (method === 'POST' && query.length) {
    const body = { type: 'object', properties: Object.fromEntries(query.map((parameter) => [parameter.name, schemaOf(parameter)])) };
    operation.requestBody = {
      required: false,
      description: 'The same parameters as the query string, in a form or JSON body (the query string wins on a clash).',
      content: { 'application/x-www-form-urlencoded': { schema: body }, 'application/json': { schema: body } },
    };
  }
  return operation;
}

function parameterObject(parameter: DiscoveredParameter): Schema {
  const notes = [parameter.condition, parameter.rule && `A wrong value is refused (code 4): ${parameter.rule}.`].filter(Boolean);
  const object: Schema = {
    name: parameter.name,
    in: parameter.in,
    required: parameter.required,
    schema: schemaOf(parameter),
  };
  if (notes.length) object.description = notes.join(' ');
  if (parameter.example !== undefined) object.example = parameter.example;
  if (parameter.reads.some((read) => read.reader === 'list')) {
    object.style = 'form';
    object.explode = false;
  }
  return object;
}

/** `day` → `[dD][aA][yY]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string) => [...word].map((letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`).join('');

/** The reader that says most about a value, when a route reads one name with several. */
const readerOrder: ParameterRead['reader'][] = ['int', 'oneOf', 'date', 'timestamp', 'period', 'limit', 'jsonObject', 'boolean', 'list', 'verbatim', 'boundedString', 'requiredString', 'string'];

function schemaOf(parameter: DiscoveredParameter): Schema {
  if (parameter.in === 'path') return { type: 'string', pattern: '^[0-9]+$' };
  const read = [...parameter.reads].sort((a, b) => readerOrder.indexOf(a.reader) - readerOrder.indexOf(b.reader))[0];
  switch (read?.reader) {
    case 'int': {
      const { min, max } = (read.args[0] ?? {}) as { min?: number; max?: number };
      return { type: 'integer', ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
    }
    case 'oneOf':
      return { type: 'string', enum: [...(read.args[0] as string[])], description: 'any case' };
    case 'date':
      return { type: 'string', pattern: '^(\\d{1,2}([-/])\\d{1,2}\\2\\d{4}|\\d{4}-\\d{1,2}-\\d{1,2})$', description: 'dd-mm-yyyy, dd/mm/yyyy or yyyy-mm-dd' };
    case 'timestamp':
      return { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$', description: "'YYYY-MM-DD HH:MM:SS' in UTC (the date alone is midnight)" };
    case 'period': {
      const units = ((read.args[0] as string[] | undefined) ?? ['DAY', 'WEEK', 'MONTH']).map((unit) => unit.toLowerCase());
      return {
        type: 'string',
        pattern: `^\\d{1,5}\\s*(${units.map(anyCase).join('|')})[sS]?$`,
        description: `'<n> <unit>', unit one of ${units.join(', ')} (any case, plural or not), such as '2 ${units[0]}s'`,
      };
    }
    case 'limit': {
      const { limit, max } = (read.args[0] as { limit: number; max: number } | undefined) ?? { limit: 10, max: 1000 };
      return { type: 'string', pattern: '^(\\d+\\s*,\\s*)?\\d+$', description: `'n' or 'offset,n': default ${limit}, at most ${max} items, offset at most 100000`, default: String(limit) };
    }
    case 'jsonObject':
      return { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object' }, description: 'a JSON object written as text' };
    case 'boolean':
      return { type: 'string', enum: ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'], default: '0', description: 'any case' };
    case 'list':
      return { type: 'array', items: { type: 'string' } };
    case 'verbatim':
      return { type: 'string', description: 'taken exactly as sent, never trimmed' };
    case 'boundedString':
      return { type: 'string', maxLength: read.args[0] };
    default:
      return { type: 'string' };
  }
}

const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

function errorStatuses(): number[] {
  return [...new Set(errorCodes.map((code) => errorCatalogue[code].status))].sort((a, b) => a - b);
}

/** One response per HTTP status, naming the codes that answer it. */
function errorResponses(): Record<string, Schema> {
  return Object.fromEntries(
    errorStatuses().map((status) => {
      const codes = errorCodes.filter((code) => errorCatalogue[code].status === status).map((code) => `${errorCatalogue[code].aeCode} ${code}`);
      return [`Error${status}`, { description: `Error: ${codes.join(', ')}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }];
    }),
  );
}

function errorTable(): string {
  const rows = errorCodes.map((code) => `| ${errorCatalogue[code].aeCode} | ${code} | ${errorCatalogue[code].status} |`);
  return ['### Error codes', '', '| code | type | HTTP |', '|---|---|---|', ...rows].join('\n');
}
