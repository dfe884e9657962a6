import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '../../core/connection.js';
import { BrandType } from './brand-types.js';
import { brandNetworkNames } from './brand-urls.js';

registerEnumType(BrandType, {
  name: 'BrandType',
  description: 'What a brand is, as create and edit take it; Brand.type reads it back as stored, in words (VIDEO_GAME is "Video Game").',
  valuesConfig: {
    MUSIC: { description: 'An artist, a band or a label (Music); the default.' },
    SPORT: { description: 'A club, a team or an athlete (Sport).' },
    CONSUMER: { description: 'A product or a consumer brand (Consumer).' },
    MOVIE: { description: 'A film (Movie).' },
    TV: { description: 'A television show or channel (TV).' },
    VIDEO_GAME: { description: 'A video game (Video Game).' },
    INFLUENCER: { description: 'A person followed for what they post (Influencer).' },
  },
});

/** `facebook, twitter, … or google`: the brand networks, from their declarations. */
const brandNetworkList = `${brandNetworkNames.slice(0, -1).join(', ')} or ${brandNetworkNames.at(-1)}`;

@ObjectType('BrandNetwork', { description: 'What the brand is on one network, read from the URL given for it.' })
export class BrandNetwork {
  @Field(() => String, { description: `${brandNetworkList}.` })
  network!: string;
  @Field(() => String, { description: 'The URL as given.' }) url!: string;
  @Field(() => String, { nullable: true, description: "The network's id for the brand, when the URL carries one." }) id!: string | null;
  @Field(() => String, { nullable: true, description: 'Screen name, username or page name on the network, when the URL carries one.' })
  handle!: string | null;
}

@ObjectType('Brand', { description: 'An artist, club, product or show of the account.' })
export class Brand {
  @Field(() => ID) id!: number;
  @Field(() => String, { description: 'Unique among the live brands of the account; derived from the name.' }) slug!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'Music, Sport, Consumer, Movie, TV, Video Game, Influencer (older brands may carry others, such as Artist).' })
  type!: string;
  @Field(() => String, { nullable: true }) officialWebsiteUrl!: string | null;
  @Field(() => String, { nullable: true }) wikipediaUrl!: string | null;
  @Field(() => String, { nullable: true }) imageUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'Without the leading #.' }) hashTag!: string | null;
  @Field(() => [BrandNetwork]) networks!: BrandNetwork[];
  @Field(() => GraphQLJSONObject, { description: 'Custom fields (enterprise, once brandCustomFields is switched on).' })
  custom!: Record<string, unknown>;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime) updatedAt!: Date;
}

@ObjectType('BrandWarning', { description: 'Something given that was kept but not understood; not an error.' })
export class BrandWarning {
  @Field(() => String, { description: 'The REST parameter it concerns, such as spotifyurl.' }) param!: string;
  @Field(() => String) message!: string;
}

@ObjectType('BrandChange', { description: 'A created or edited brand, with what could not be read from the URLs given.' })
export class BrandChange {
  @Field(() => Brand) brand!: Brand;
  @Field(() => [BrandWarning]) warnings!: BrandWarning[];
}

@ObjectType('BrandEdge')
export class BrandEdge {
  @Field(() => String) cursor!: string;
  @Field(() => Brand) node!: Brand;
}

@ObjectType('BrandConnection')
export class BrandConnection {
  @Field(() => [BrandEdge]) edges!: BrandEdge[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'Brands of the listing (of the type, when given), all pages together.' }) totalCount!: number;
  @Field(() => [Brand], { description: 'The nodes of edges, in the same order.' }) nodes!: Brand[];
}

@InputType('BrandNetworkInput')
export class BrandNetworkInput {
  @Field(() => String, { description: 'A network of BrandNetwork.network.' }) network!: string;
  @Field(() => String, { nullable: true, description: 'The brand on that network; null removes the network (on edit).' }) url?: string | null;
}

@InputType('BrandInput', { description: 'On create, name is required; on edit, only the fields given change and null clears one.' })
export class BrandInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => BrandType, { nullable: true, description: 'Default MUSIC.' })
  type?: BrandType | null;
  @Field(() => String, { nullable: true }) officialWebsiteUrl?: string | null;
  @Field(() => String, { nullable: true }) wikipediaUrl?: string | null;
  @Field(() => String, { nullable: true }) imageUrl?: string | null;
  @Field(() => String, { nullable: true }) hashTag?: string | null;
  @Field(() => [BrandNetworkInput], { nullable: true }) networks?: BrandNetworkInput[] | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Merged into the custom fields; a null value removes that field.' })
  custom?: Record<string, unknown> | null;
}

@ObjectType('CrossoverBrand', { description: 'A brand and how many of the base members were active on it.' })
export class CrossoverBrand {
  @Field(() => Brand) brand!: Brand;
  @Field(() => Int, { description: 'Base members active on this brand in the window.' }) activeMembers!: number;
  @Field(() => Float, { description: 'activeMembers as a percentage of the base, rounded to two decimals.' }) percentage!: number;
}

@ObjectType('Crossover', { description: 'See docs/brands.md for the definition.' })
export class Crossover {
  @Field(() => Int, { description: 'Brands with at least one base member active on them (before paging).' }) totalCount!: number;
  @Field(() => Int, { description: "The base: members active on the brand (or on any brand) in the window." }) baseMembers!: number;
  @Field(() => [CrossoverBrand]) nodes!: CrossoverBrand[];
}

@InputType('CrossoverFilter')
export class CrossoverFilter {
  @Field(() => [String], { nullable: true, description: 'ISO 3166-1 alpha-2 codes of the members’ countries.' }) countries?: string[];
  @Field(() => [String], { nullable: true, description: 'Only activity through these networks counts.' }) services?: string[];
  @Field(() => String, { nullable: true, description: 'Only brands of this type are listed.' }) brandType?: string;
}
