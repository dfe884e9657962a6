import type { BrandChangeRecordFragment, BrandRecordFragment } from '../../generated/graphql.js';
import { brandNetworkNames, brandNetworks } from '../../modules/brands/brand-urls.js';

/**
 * The seed's brand record: ID is a number; then names and URLs, the network fields in a fixed
 * order (`<Network>URL`, `<Network>ID`, and the name on it where the network has one), HashTag,
 * and Custom (the enterprise custom fields, an object).
 */
export function brandRecord(brand: BrandRecordFragment): Record<string, unknown> {
  const record: Record<string, unknown> = {
    ID: Number(brand.id),
    Slug: brand.slug,
    Name: brand.name,
    Type: brand.type,
    OfficialWebsiteURL: brand.officialWebsiteUrl,
    WikipediaURL: brand.wikipediaUrl,
    ImageURL: brand.imageUrl,
  };
  for (const network of brandNetworkNames) {
    const { field, handle } = brandNetworks[network];
    const ref = brand.networks.find((candidate) => candidate.network === network);
    record[`${field}URL`] = ref?.url ?? null;
    record[`${field}ID`] = ref?.id ?? null;
    if (handle) record[`${field}${handle}`] = ref?.handle ?? null;
  }
  record.HashTag = brand.hashTag;
  record.Custom = brand.custom;
  return record;
}

/** Create and edit answer the record with what could not be read from the URLs given. */
export function changeRecord(change: BrandChangeRecordFragment) {
  return { ...brandRecord(change.brand), Warnings: change.warnings.map((warning) => ({ Param: warning.param, Message: warning.message })) };
}
