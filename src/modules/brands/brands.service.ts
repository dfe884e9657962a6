import slugify from '@sindresorhus/slugify';
import type { Database } from '../../db/client.js';
import type { ApplicationSettings, BrandNetworkRef, Plan } from '../../db/schema/index.js';
import { AppError, invalidParameter, throwMissing, notFound } from '../../core/errors.js';
import { validateAll } from '../../core/user-errors.js';
import { brandNetworkNames, brandNetworks, parseNetworkUrl, type BrandNetworkName } from './brand-urls.js';
import { brandTypes } from './brand-types.js';
import * as q from './brands.queries.js';
import type { BrandRow, NewBrandRow } from './brands.queries.js';
import type { BrandInput, BrandNetworkInput, BrandWarning } from './brands.types.js';

/** Who acts: an application of an account, whose plan and features decide on custom fields. */
export interface BrandScope {
  db: Database;
  accountId: number;
  plan: Plan;
  settings: ApplicationSettings;
}

export interface BrandResult {
  row: BrandRow;
  warnings: BrandWarning[];
}

export { brandTypes };

/** The feature an enterprise application switches on to store custom fields on brands. */
export const customFieldsFeature = 'brandCustomFields';

/** Custom fields are free-form, but not a place for documents. */
const maxCustomBytes = 16 * 1024;

export async function requireBrand(db: Database, accountId: number, id: number, param = 'id'): Promise<BrandRow> {
  const row = await q.findBrand(db, accountId, id);
  if (!row) throw notFound('Brand', param);
  return row;
}

export async function createBrand(scope: BrandScope, input: BrandInput): Promise<BrandResult> {
  const { name, read } = validateAll(
    {
      name: () => readName(input.name) ?? throwMissing('name'),
      read: () => readValues(scope, input, undefined),
    },
    (key) => (key === 'name' ? inputPath('name') : []),
  );
  const { values, warnings } = read;
  const base = slugBase(name);
  // Another brand may take the slug between the look-up and the insert: then pick again.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const slug = freeSlug(base, await q.slugsLike(scope.db, scope.accountId, base));
    const row = await q.insertBrandIfSlugFree(scope.db, {
      type: 'Music',
      ...values,
      accountId: scope.accountId,
      name,
      slug,
    });
    if (row) return { row, warnings };
  }
  throw new AppError('CONFLICT', 'Brands with this name are being created at the same time; try again.', 'name');
}

export async function editBrand(scope: BrandScope, id: number, input: BrandInput): Promise<BrandResult> {
  const current = await requireBrand(scope.db, scope.accountId, id);
  const { name, read } = validateAll(
    {
      name: () => (input.name === undefined ? undefined : (readName(input.name) ?? throwInvalid('name', 'a brand needs a name'))),
      read: () => readValues(scope, input, current),
    },
    (key) => (key === 'name' ? inputPath('name') : []),
  );
  const { values, warnings } = read;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const slug = name === undefined ? undefined : await slugFor(scope, name, current);
    try {
      const row = await q.updateBrand(scope.db, scope.accountId, id, { ...values, ...(name ? { name, slug } : {}) });
      if (!row) throw notFound('Brand');
      return { row, warnings };
    } catch (error) {
      if (!q.isUniqueViolation(error)) throw error;
    }
  }
  throw new AppError('CONFLICT', 'Brands with this name are being changed at the same time; try again.', 'name');
}

/** Soft delete: activity recorded against the brand stays readable; the brand is not found any more. */
export async function deleteBrand(scope: BrandScope, id: number): Promise<boolean> {
  if (!(await q.softDeleteBrand(scope.db, scope.accountId, id))) throw notFound('Brand');
  return true;
}

/** A brand type of the creation list, matched in any case and returned as listed. */
export function readBrandType(value: string, param = 'type'): (typeof brandTypes)[number] {
  const match = brandTypes.find((type) => type.toLowerCase() === value.trim().toLowerCase());
  if (!match) throw invalidParameter(param, `expected one of ${brandTypes.join(', ')}`);
  return match;
}

// ——— reading the input ———

function readName(value: string | null | undefined): string | undefined {
  const name = value?.trim();
  if (!name) return undefined;
  if (name.length > 200) throw invalidParameter('name', 'at most 200 characters');
  return name;
}

/** The GraphQL path of a BrandInput field (user errors, warnings). */
const inputPath = (...path: string[]) => ['input', ...path];

function throwInvalid(param: string, expected: string): never {
  throw invalidParameter(param, expected);
}

const urlFields = [
  ['officialWebsiteUrl', 'officialwebsiteurl'],
  ['wikipediaUrl', 'wikipediaurl'],
  ['imageUrl', 'imageurl'],
] as const;

/**
 * Everything but the name, checked; on edit (`current` given) only what the input names. Every
 * field is checked (validateAll), each problem under its input path, in the order REST reports
 * the first: type, the URLs, the hashtag, the networks, the custom fields.
 */
function readValues(scope: BrandScope, input: BrandInput, current: BrandRow | undefined) {
  const warnings: BrandWarning[] = [];
  const read = validateAll(
    {
      type: () => {
        if (input.type !== undefined && input.type !== null && input.type.trim() !== '') return readBrandType(input.type);
        if (input.type === null && current) throw invalidParameter('type', 'a brand needs a type');
        return undefined;
      },
      officialWebsiteUrl: () => optionalUrl(input.officialWebsiteUrl, urlFields[0][1]),
      wikipediaUrl: () => optionalUrl(input.wikipediaUrl, urlFields[1][1]),
      imageUrl: () => optionalUrl(input.imageUrl, urlFields[2][1]),
      hashTag: () => (input.hashTag === undefined ? undefined : hashTag(input.hashTag)),
      networks: () => (input.networks?.length ? readNetworks(input.networks, current, warnings) : undefined),
      custom: () => (input.custom !== undefined && input.custom !== null ? customFields(scope, input.custom, current?.custom ?? {}) : undefined),
    },
    (key) => inputPath(key),
  );
  const values: Partial<NewBrandRow> = {};
  for (const [field, value] of Object.entries(read)) {
    if (value !== undefined) Object.assign(values, { [field]: value });
  }
  return { values, warnings };
}

/** A URL field: undefined when not given, null when cleared. */
function optionalUrl(value: string | null | undefined, param: string): string | null | undefined {
  if (value === undefined) return undefined;
  return value === null || value.trim() === '' ? null : webUrl(value, param);
}

/** The networks given, merged into the brand's: every entry checked, each problem under its index. */
function readNetworks(given: readonly BrandNetworkInput[], current: BrandRow | undefined, warnings: BrandWarning[]) {
  const networks = { ...(current?.networks ?? {}) };
  validateAll(Object.fromEntries(given.map((entry, index) => [String(index), () => readNetworkEntry(entry, index, networks, warnings)])), (key) => [key]);
  return networks;
}

function readNetworkEntry(given: BrandNetworkInput, index: number, networks: Record<string, BrandNetworkRef>, warnings: BrandWarning[]): void {
  let network: BrandNetworkName | undefined;
  validateAll(
    {
      network: () => (network = brandNetwork(given.network)),
      url: () => {
        if (network === undefined) return;
        const param = `${network}url`;
        if (given.url === null || given.url === undefined || given.url.trim() === '') {
          delete networks[network];
          return;
        }
        if (given.url.length > 2000) throw invalidParameter(param, 'at most 2000 characters');
        const parsed = parseNetworkUrl(network, given.url);
        networks[network] = parsed.ref;
        if (!parsed.recognised) {
          warnings.push({
            param,
            field: inputPath('networks', String(index), 'url'),
            message: `No ${brandNetworks[network].name} id or name could be read from this URL; it is kept as given.`,
          });
        }
      },
    },
    (key) => [key],
  );
}

function brandNetwork(value: string): BrandNetworkName {
  const network = value.trim().toLowerCase();
  if (!(brandNetworkNames as string[]).includes(network)) throw invalidParameter('network', `expected one of ${brandNetworkNames.join(', ')}`);
  return network as BrandNetworkName;
}

/** An http(s) URL; one without a scheme is read as https, as people type them. */
function webUrl(value: string, param: string): string {
  const given = value.trim();
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(given) ? given : `https://${given}`;
  let url: URL | undefined;
  try {
    url = new URL(candidate);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname.includes('.') || given.length > 2000) {
    throw invalidParameter(param, 'expected an http or https URL');
  }
  return candidate;
}

function hashTag(value: string | null): string | null {
  const tag = value?.trim().replace(/^#/, '');
  if (!tag) return null;
  if (!/^[\p{L}\p{N}_]{1,100}$/u.test(tag)) throw invalidParameter('hashtag', 'expected one hashtag of letters, digits and underscores');
  return tag;
}

/** Enterprise only, and only once the application has switched the feature on. */
function customFields(scope: BrandScope, given: Record<string, unknown>, current: Record<string, unknown>) {
  if (scope.plan !== 'enterprise' || !scope.settings.features?.includes(customFieldsFeature)) {
    throw new AppError('FEATURE_NOT_ENABLED', `Custom brand fields need an enterprise plan with the ${customFieldsFeature} feature switched on for the application.`, 'custom');
  }
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(given)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (Buffer.byteLength(JSON.stringify(merged)) > maxCustomBytes) throw invalidParameter('custom', `at most ${maxCustomBytes / 1024} KiB of custom fields`);
  return merged;
}

// ——— slugs ———

function slugBase(name: string): string {
  return slugify(name).slice(0, 80).replace(/-+$/, '') || 'brand';
}

/** `base` when free, else `base-2`, `base-3`, … the first one free. */
function freeSlug(base: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}-${n}`)) n += 1;
  return `${base}-${n}`;
}

/** A renamed brand keeps its slug when the new name gives the same base (`adele-2` stays `adele-2`). */
async function slugFor(scope: BrandScope, name: string, current: BrandRow): Promise<string> {
  const base = slugBase(name);
  if (current.slug === base || new RegExp(`^${base}-\\d+$`).test(current.slug)) return current.slug;
  return freeSlug(base, await q.slugsLike(scope.db, scope.accountId, base, current.id));
}
