/**
 * The types a brand may be created or edited with (the interface's list); older brands may carry
 * others (Artist). The service checks them and the REST document lists them from here. GraphQL
 * takes them as the enum BrandType (brands.types.ts): the names are GraphQL's (VIDEO_GAME), the
 * values the interface's words, as stored ('Video Game').
 */
export enum BrandType {
  MUSIC = 'Music',
  SPORT = 'Sport',
  CONSUMER = 'Consumer',
  MOVIE = 'Movie',
  TV = 'TV',
  VIDEO_GAME = 'Video Game',
  INFLUENCER = 'Influencer',
}

export const brandTypes: readonly BrandType[] = Object.values(BrandType);
