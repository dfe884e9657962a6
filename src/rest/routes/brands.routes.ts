import { CreateBrandDocument, CrossoverDocument, DeleteBrandDocument, EditBrandDocument, ListBrandsDocument, ShowBrandDocument, type BrandInput } from '../../generated/graphql.js';
import { brandNetworkNames } from '../../modules/brands/brand-urls.js';
import { brandTypes } from '../../modules/brands/brand-types.js';
import { brandRecord, changeRecord } from '../records/brands.js';
import { brandTypeWords } from '../enums.js';
import { windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { defineRoute, pathId } from '../route.js';
import { createRoute, deleteRoute, editRoute, idFromPath, pageOf } from '../route-forms.js';

/** The parameters create and edit name themselves; every other one is a custom field. */
const brandParameters = ['name', 'type', 'officialwebsiteurl', 'wikipediaurl', 'imageurl', 'hashtag', 'custom', ...brandNetworkNames.map((network) => `${network}url`)];
/**
 * Parameters that are never custom fields: the key, the id the path already carries (callers
 * repeat it as `id` or `brandID`), and the debugging switch old clients add to every call.
 */
const transportParameters = ['apikey', 'id', 'brandid', 'turnoffdebug'];
const knownBrandParameters = new Set([...brandParameters, ...transportParameters]);

/**
 * Custom fields as the interface sends them, as named parameters (`label_id=L-77`), merged over
 * those of `custom` (a JSON object). Named values are text; the service checks the feature.
 */
function customFieldsOf(params: Params): Record<string, unknown> | undefined {
  const json = params.jsonObject('custom');
  const named = params.others(knownBrandParameters);
  if (!Object.keys(named).length) return json;
  return { ...json, ...named };
}

/** The parameters of create and edit: every one optional here; create needs a name. */
function brandInput(params: Params, { create }: { create: boolean }): BrandInput {
  const networks = brandNetworkNames.map((network) => ({ network, url: params.string(`${network}url`) })).filter((given) => given.url !== undefined);
  const type = params.oneOf('type', brandTypes);
  return {
    name: create ? params.requiredString('name') : params.string('name'),
    type: type && brandTypeWords.name(type),
    officialWebsiteUrl: params.string('officialwebsiteurl'),
    wikipediaUrl: params.string('wikipediaurl'),
    imageUrl: params.string('imageurl'),
    hashTag: params.string('hashtag'),
    networks: networks.length ? networks : undefined,
    custom: customFieldsOf(params),
  };
}

/** A refused custom field is named by the parameter that carried it: `custom`, or the first named one. */
function customFieldParam(graphqlParam: string, params: Params): string | undefined {
  if (graphqlParam !== 'custom' || params.string('custom') !== undefined) return undefined;
  return Object.keys(params.others(knownBrandParameters))[0];
}

export const showBrandRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id',
  description: 'Show a brand: its names, URLs and the ids of its network pages.',
  response: 'BrandRecord',
  document: ShowBrandDocument,
  variables: idFromPath,
  shape: ({ brand }) => brandRecord(brand),
});

export const listBrandsRoute = defineRoute({
  methods: ['GET'],
  path: '/brands',
  response: 'BrandList',
  description: 'List every brand.',
  document: ListBrandsDocument,
  variables: (params) => ({ type: params.string('type'), ...pageOf(params) }),
  shape: ({ brands }) => ({ totalSize: brands.totalCount, items: brands.nodes.map(brandRecord) }),
});

export const createBrandRoute = createRoute(
  {
    path: '/brand/create',
    description:
      'Create a brand. Network ids and names are read from the network URLs given (`<network>url`); what could not be read comes back as warnings. ' +
      'Enterprise custom fields come as named parameters (`label_id=L-77`) or as `custom`, a JSON object; they need `brandCustomFields` switched on (`/app/brand-custom-fields`), and any other parameter is refused with code 12 until then.',
    response: 'BrandRecord',
    document: CreateBrandDocument,
    errorParam: customFieldParam,
  },
  (params) => brandInput(params, { create: true }),
  changeRecord,
);

export const editBrandRoute = editRoute(
  { path: '/brand/:id/edit', description: 'Edit a brand: the parameters of create, each optional.', response: 'BrandRecord', document: EditBrandDocument, errorParam: customFieldParam },
  (params) => brandInput(params, { create: false }),
  changeRecord,
);

export const deleteBrandRoute = deleteRoute('/brand/:id/delete', 'Delete a brand.', DeleteBrandDocument);

/** Crossover with or without a brand: the same parameters, the same items. */
function crossoverRoute(path: string, withBrand: boolean, description: string) {
  return defineRoute({
    methods: ['GET'],
    path,
    description,
    response: 'CrossoverPage',
    document: CrossoverDocument,
    variables: (params, request) => ({
      ...pageOf(params),
      brandId: withBrand ? pathId(request) : undefined,
      filter: {
        countries: params.list('country'),
        services: params.list('services'),
        brandType: params.string('brand_type'),
      },
      window: windowOf(params),
    }),
    shape: ({ crossover }) => ({
      totalSize: crossover.totalCount,
      items: crossover.nodes.map((node) => ({
        ...brandRecord(node.brand),
        ActiveMembers: String(node.activeMembers),
        Percentage: node.percentage.toFixed(2),
      })),
    }),
  });
}

export const brandRoutes = [
  showBrandRoute,
  listBrandsRoute,
  createBrandRoute,
  editBrandRoute,
  deleteBrandRoute,
  crossoverRoute('/brands/:id/crossover', true, 'Crossover: the brands most preferred by the active members of this brand in the window, with their share.'),
  crossoverRoute('/brands/crossover', false, 'Crossover without a brand: the most popular brands overall in the window.'),
];
