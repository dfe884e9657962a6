import type { Params } from './params.js';

/** `fields` keeps the named top-level fields (any case); dotted `extended.` names were applied by the query. */
export function keepFields(record: Record<string, unknown>, params: Params): Record<string, unknown> {
  const fields = params.list('fields')?.filter((field) => !/^extended\./i.test(field));
  const wanted = fields?.length ? new Set(fields.map((field) => field.toLowerCase())) : undefined;
  return wanted ? Object.fromEntries(Object.entries(record).filter(([name]) => wanted.has(name.toLowerCase()) || name === 'Extended')) : record;
}

/** The `extended` and `extendedFields` variables from `extended=1` and dotted `fields`. */
export function extendedVariables(params: Params) {
  const extendedFields = params
    .list('fields')
    ?.filter((field) => /^extended\./i.test(field))
    .map((field) => field.slice('extended.'.length));
  return {
    extended: params.boolean('extended') || Boolean(extendedFields?.length),
    extendedFields: extendedFields?.length ? extendedFields : undefined,
  };
}
