import { FieldResolver, Float, Resolver, Root } from 'type-graphql';
import { Geo } from './members.types.js';

/** Stored text (at most four decimals) as a number: the same value, typed as what it holds. */
function degreesOf(text: string | null): number | null {
  if (text === null || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Geo's coordinates as numbers, beside the text of REST's GeoLat and GeoLong. */
@Resolver(() => Geo)
export class GeoCoordinatesResolver {
  @FieldResolver(() => Float, { nullable: true, description: 'Latitude in decimal degrees (at most four decimals, about 10 m); null when not known.' })
  latitude(@Root() geo: Geo): number | null {
    return degreesOf(geo.lat);
  }

  @FieldResolver(() => Float, { nullable: true, description: 'Longitude in decimal degrees (at most four decimals, about 10 m); null when not known.' })
  longitude(@Root() geo: Geo): number | null {
    return degreesOf(geo.long);
  }
}
