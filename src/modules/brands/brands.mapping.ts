import { brandNetworkNames } from './brand-urls.js';
import type { BrandRow } from './brands.queries.js';
import type { Brand } from './brands.types.js';

export function toBrand(row: BrandRow): Brand {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    type: row.type,
    officialWebsiteUrl: row.officialWebsiteUrl,
    wikipediaUrl: row.wikipediaUrl,
    imageUrl: row.imageUrl,
    hashTag: row.hashTag,
    // In the order of the brand record, whatever order they were given in.
    networks: brandNetworkNames
      .filter((network) => row.networks[network])
      .map((network) => {
        const ref = row.networks[network];
        return { network, url: ref.url, id: ref.id ?? null, handle: ref.handle ?? null };
      }),
    custom: row.custom,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deletedAt: row.deletedAt,
  };
}
