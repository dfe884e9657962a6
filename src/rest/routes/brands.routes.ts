import {
  CreateBrandDocument,
  CrossoverDocument,
  DeleteBrandDocument,
  EditBrandDocument,
  ListBrandsDocument,
  ShowBrandDocument,
  type BrandInput,
} from '../../generated/graphql.js';
import { brandNetworkNames } from '../../modules/brands/brand-urls.js';
import { brandRecord, changeRecord } from '../records/brands.js';
import { windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { defineRoute, pathId } from '../route.js';
import { createRoute, deleteRoute, editRoute, idFromPath, pageOf } from '../route-forms.js';

/** The parameters of create and edit: every one optional here; create needs a name. */
function brandInput(params: Params): BrandInput {
  const networks = brandNetworkNames
    .map((network) => ({ network, url: params.string(`${network}url`) }))
    .filter((given) => given.url !== undefined);
  return {
    name: params.string('name'),
    type: params.string('type'),
    officialWebsiteUrl: params.string('officialwebsiteurl'),
    wikipediaUrl: params.string('wikipediaurl'),
    imageUrl: params.string('imageurl'),
    hashTag: params.string('hashtag'),
    networks: networks.length ? networks : undefined,
    custom: params.jsonObject('custom'),
  };
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
  description: 'List every brand.',
  document: ListBrandsDocument,
  variables: (params) => ({ type: params.string('type'), ...pageOf(params) }),
  shape: ({ brands }) => ({ totalSize: brands.totalCount, items: brands.nodes.map(brandRecord) }),
});

export const createBrandRoute = createRoute(
  {
    path: '/brand/create',
    description: 'Create a brand. Network ids and names are read from the network URLs given (`<network>url`); what could not be read comes back as warnings. `custom` holds the enterprise custom fields.',
    response: 'BrandRecord',
    document: CreateBrandDocument,
  },
  brandInput,
  changeRecord,
);

export const editBrandRoute = editRoute(
  { path: '/brand/:id/edit', description: 'Edit a brand: the parameters of create, each optional.', response: 'BrandRecord', document: EditBrandDocument },
  brandInput,
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
