import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { Params } from '../params.js';
import type { RestRoute } from '../route.js';

/**
 * A route's parameters, read from the route itself: its `variables` function runs with a Params
 * that records every reader it calls (name, reader, options) and answers as the real Params would.
 * Nothing is listed by hand, so the document cannot drift from what a route reads.
 *
 * A run stops at the first error, so discovery runs again until the route takes the call: a
 * missing parameter is given a value its reader accepts, and a second pass gives every parameter
 * one, for parameters read only when another is present. A route whose own code refuses such a
 * made-up value (`interval` must be hour, day or month) gives a valid one in its `examples`.
 */

/** The readers of one named parameter (`others` reads whatever is not named, and is not one). */
type Reader = Exclude<keyof Params, 'others'>;

export interface ParameterRead {
  reader: Reader;
  args: readonly unknown[];
}

export interface DiscoveredParameter {
  /** As the route's code spells it (names match in any case). */
  name: string;
  in: 'path' | 'query';
  reads: ParameterRead[];
  /** Required on every call: read with requiredString, or reported missing with the standard message. */
  required: boolean;
  /** The message of a "missing" error that names a condition (`recordid`, or `activityid`). */
  condition?: string;
  /** What a wrong value is told: the route's own error message. */
  rule?: string;
  /** A value the route takes. */
  example?: string;
}

/** Records each reader call, then answers with the real Params. */
class RecordingParams implements Pick<Params, Reader | 'others'> {
  readonly reads: { name: string; read: ParameterRead }[] = [];

  constructor(private readonly real: Params) {}

  /** Notes the call, then answers as the real Params does. */
  private read<R extends Reader>(reader: R, name: string, args: readonly unknown[] = []): ReturnType<Params[R]> {
    this.reads.push({ name, read: { reader, args } });
    return (this.real[reader] as (...given: unknown[]) => ReturnType<Params[R]>).call(this.real, name, ...args);
  }

  string(name: string) {
    return this.read('string', name);
  }
  boundedString(name: string, max: number) {
    return this.read('boundedString', name, [max]);
  }
  requiredString(name: string) {
    return this.read('requiredString', name);
  }
  verbatim(name: string) {
    return this.read('verbatim', name);
  }
  boolean(name: string) {
    return this.read('boolean', name);
  }
  int(name: string, bounds?: { min?: number; max?: number }) {
    return this.read('int', name, [bounds]);
  }
  list(name: string) {
    return this.read('list', name);
  }
  date(name: string) {
    return this.read('date', name);
  }
  oneOf<T extends string>(name: string, values: readonly T[]) {
    return this.read('oneOf', name, [values]) as T | undefined;
  }
  timestamp(name: string) {
    return this.read('timestamp', name);
  }
  period(name: string, units?: Parameters<Params['period']>[1]) {
    return this.read('period', name, [units]);
  }
  jsonObject(name: string) {
    return this.read('jsonObject', name);
  }
  limit(name = 'limit', defaults?: Parameters<Params['limit']>[1]) {
    return this.read('limit', name, [defaults]);
  }
  others(known: ReadonlySet<string>) {
    return this.real.others(known);
  }
}

/** A value each reader takes, for parameters the route itself has no example of. */
function sampleFor(reads: ParameterRead[]): string {
  for (const { reader, args } of reads) {
    if (reader === 'int') return String((args[0] as { min?: number } | undefined)?.min ?? 1);
    if (reader === 'oneOf') return (args[0] as string[])[0];
    if (reader === 'date') return '2000-01-31';
    if (reader === 'timestamp') return '2024-01-01 00:00:00';
    if (reader === 'period') return `1 ${((args[0] as string[] | undefined)?.[0] ?? 'DAY').toLowerCase()}`;
    if (reader === 'jsonObject') return '{}';
    if (reader === 'boolean') return '1';
    if (reader === 'limit') return '10';
  }
  return '1';
}

/** The value a wrong-value probe sends: refused by every typed reader and by the id rules. */
const wrongValue = '*';

const pathNamesOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);

function fakeRequest(route: RestRoute, pathValues: Record<string, string>): FastifyRequest {
  return { params: pathValues, query: {}, body: undefined, url: `/v1.1${route.path}`, headers: {} } as unknown as FastifyRequest;
}

function errorOf(error: unknown): { code: string; param: string | null; message: string } | undefined {
  return error instanceof AppError ? { code: error.extensions.code, param: error.extensions.param, message: error.message } : undefined;
}

/** `The parameter 'x' is invalid: expected a whole number.` → `expected a whole number` */
function ruleOf(message: string): string {
  return message.replace(/^The parameter '[^']*' is invalid: /, '').replace(/\.$/, '');
}

export function discoverParameters(route: RestRoute): DiscoveredParameter[] {
  const found = new Map<string, DiscoveredParameter>();
  const pathNames = pathNamesOf(route.path);
  const validPath = Object.fromEntries(pathNames.map((name) => [name, '1']));
  const key = (name: string) => name.toLowerCase();
  const parameter = (name: string) => {
    let entry = found.get(key(name));
    if (!entry) found.set(key(name), (entry = { name, in: 'query', reads: [], required: false }));
    return entry;
  };
  const run = (values: Record<string, string>, pathValues = validPath) => {
    const recorder = new RecordingParams(Params.of(values));
    let failure: Error | undefined;
    try {
      route.variables(recorder as unknown as Params, fakeRequest(route, pathValues));
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    for (const { name, read } of recorder.reads) {
      const entry = parameter(name);
      if (!entry.reads.some((known) => known.reader === read.reader)) entry.reads.push(read);
      if (read.reader === 'requiredString') entry.required = true;
    }
    return failure;
  };

  // First pass: until the route takes the call, giving each missing parameter a value.
  const values: Record<string, string> = { ...route.examples };
  for (let attempt = 0; ; attempt += 1) {
    const failure = run(values);
    if (failure === undefined) break;
    const error = errorOf(failure);
    const stuck = () => new Error(`REST route ${route.path}: parameters cannot be discovered: ${error?.message ?? String(failure)}`);
    if (!error?.param || attempt > 50) throw stuck();
    const entry = parameter(error.param);
    if (error.code === 'MISSING_PARAMETER' && values[key(error.param)] === undefined) {
      if (error.message === `The parameter '${error.param}' is required.`) entry.required = true;
      else entry.condition = error.message;
      values[key(error.param)] = sampleFor(entry.reads);
    } else {
      throw new Error(`${stuck().message} (give the route an example value for '${error.param}')`);
    }
  }

  // Second pass: every parameter given, for those read only beside another; refusals are expected here.
  for (let pass = 0; pass < 3; pass += 1) {
    const before = found.size;
    const all = Object.fromEntries([...found.values()].filter((entry) => entry.in === 'query').map((entry) => [key(entry.name), values[key(entry.name)] ?? sampleFor(entry.reads)]));
    run({ ...all, ...values });
    if (found.size === before) break;
  }

  // Rules: each parameter sent a wrong value, the others as the first pass left them; and left out,
  // for those the first pass never saw missing because an example gave them.
  for (const entry of found.values()) {
    if (values[key(entry.name)] !== undefined && !entry.required && !entry.condition) {
      const { [key(entry.name)]: _left, ...others } = values;
      const missing = errorOf(run(others));
      if (missing?.code === 'MISSING_PARAMETER' && missing.param && key(missing.param) === key(entry.name)) {
        if (missing.message === `The parameter '${missing.param}' is required.`) entry.required = true;
        else entry.condition = missing.message;
      }
    }
    const error = errorOf(run({ ...values, [key(entry.name)]: wrongValue }));
    if (error?.code === 'INVALID_PARAMETER' && error.param && key(error.param) === key(entry.name)) entry.rule = ruleOf(error.message);
    entry.example = route.examples?.[entry.name] ?? route.examples?.[key(entry.name)];
  }
  for (const name of pathNames) {
    const error = errorOf(run(values, { ...validPath, [name]: wrongValue }));
    found.set(`path:${name}`, {
      name,
      in: 'path',
      reads: [],
      required: true,
      rule: error?.code === 'INVALID_PARAMETER' && error.param === name ? ruleOf(error.message) : undefined,
      example: '1',
    });
  }
  return [...found.values()];
}
