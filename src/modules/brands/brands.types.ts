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
  @Field(() => ID, { description: "The brand's id (REST brandID)." }) id!: number;
  @Field(() => String, { description: 'Unique among the live brands of the account; derived from the name.' }) slug!: string;
  @Field(() => String, { description: "The brand's name, at most 200 characters." }) name!: string;
  @Field(() => String, { description: 'Music, Sport, Consumer, Movie, TV, Video Game, Influencer (older brands may carry others, such as Artist).' })
  type!: string;
  @Field(() => String, { nullable: true, description: "The brand's own website (http or https); null when none." }) officialWebsiteUrl!: string | null;
  @Field(() => String, { nullable: true, description: "The brand's Wikipedia page; null when none." }) wikipediaUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'An image of the brand; null when none.' }) imageUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'Without the leading #.' }) hashTag!: string | null;
  @Field(() => [BrandNetwork], { description: 'The brand on each network a URL was given for (REST <Network>URL, <Network>ID and name fields).' }) networks!: BrandNetwork[];
  @Field(() => GraphQLJSONObject, { description: 'Custom fields (enterprise, once brandCustomFields is switched on).' })
  custom!: Record<string, unknown>;
  @Field(() => GraphQLDateTime, { description: 'When the brand was created.' }) createdAt!: Date;
  @Field(() => GraphQLDateTime, { description: 'When the brand was last edited (its creation, if never).' }) updatedAt!: Date;
  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: 'When the brand was deleted; null while it is live. Records, activities and listings of a deleted brand still name it, with its last name and type.',
  })
  deletedAt!: Date | null;
}

@ObjectType('BrandWarning', { description: 'Something given that was kept but not understood; not an error.' })
export class BrandWarning {
  @Field(() => String, { description: 'The REST parameter it concerns, such as spotifyurl.' }) param!: string;
  @Field(() => [String], { description: 'The input path of the value it concerns, as UserError.field: ["input", "networks", "0", "url"].' }) field!: string[];
  @Field(() => String, { description: 'What could not be read, in words.' }) message!: string;
}

@ObjectType('BrandChange', { description: 'A created or edited brand, with what could not be read from the URLs given.' })
export class BrandChange {
  @Field(() => Brand, { description: 'The brand as stored.' }) brand!: Brand;
  @Field(() => [BrandWarning], { description: 'URLs kept without an id or name read from them; empty when all were understood.' }) warnings!: BrandWarning[];
}

@ObjectType('BrandEdge', { description: 'A brand of a page, with its place in the list.' })
export class BrandEdge {
  @Field(() => String, { description: "Opaque: stands for this brand's id, to pass as after." }) cursor!: string;
  @Field(() => Brand, { description: 'The brand.' }) node!: Brand;
}

@ObjectType('BrandConnection', { description: "A page of the account's live brands, by id." })
export class BrandConnection {
  @Field(() => [BrandEdge], { description: "The page's brands, by id." }) edges!: BrandEdge[];
  @Field(() => PageInfo, { description: 'Whether pages follow or precede this one, and the cursors to reach them.' }) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'Brands of the listing (of the type, when given), all pages together.' }) totalCount!: number;
  @Field(() => [Brand], { description: 'The nodes of edges, in the same order.' }) nodes!: Brand[];
}

@InputType('BrandNetworkInput', { description: "The brand's URL on one network (REST <network>url)." })
export class BrandNetworkInput {
  @Field(() => String, { description: 'A network of BrandNetwork.network.' }) network!: string;
  @Field(() => String, { nullable: true, description: 'The brand on that network; null removes the network (on edit).' }) url?: string | null;
}

@InputType('BrandInput', { description: 'On create, name is required; on edit, only the fields given change and null clears one.' })
export class BrandInput {
  @Field(() => String, { nullable: true, description: "The brand's name, at most 200 characters (required on create); a rename moves the slug with it." }) name?: string | null;
  @Field(() => BrandType, { nullable: true, description: 'What kind of brand it is; default MUSIC.' })
  type?: BrandType | null;
  @Field(() => String, { nullable: true, description: 'An http(s) URL, at most 2,000 characters; without a scheme it is read as https.' }) officialWebsiteUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'An http(s) URL, at most 2,000 characters; without a scheme it is read as https.' }) wikipediaUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'An http(s) URL, at most 2,000 characters; without a scheme it is read as https.' }) imageUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'One hashtag of letters, digits and underscores, at most 100; a leading # is dropped.' }) hashTag?: string | null;
  @Field(() => [BrandNetworkInput], { nullable: true, description: 'URLs on networks: each given one is set (and read again), the others stay.' }) networks?: BrandNetworkInput[] | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Merged into the custom fields; a null value removes that field. At most 16 KiB; needs Application.brandCustomFields.' })
  custom?: Record<string, unknown> | null;
}

@ObjectType('CrossoverBrand', { description: 'A brand and how many of the base members were active on it.' })
export class CrossoverBrand {
  @Field(() => Brand, { description: 'The brand.' }) brand!: Brand;
  @Field(() => Int, { description: 'Base members active on this brand in the window.' }) activeMembers!: number;
  @Field(() => Float, { description: 'activeMembers as a percentage of the base, rounded to two decimals.' }) percentage!: number;
}

@ObjectType('CrossoverEdge', { description: 'A brand of a crossover page, with its place in the ranking.' })
export class CrossoverEdge {
  @Field(() => String, { description: "Opaque: this brand's place in the ranking (a position: the counts move as records arrive), to pass as after or before." })
  cursor!: string;
  @Field(() => CrossoverBrand, { description: 'The brand and its count.' }) node!: CrossoverBrand;
}

@ObjectType('Crossover', {
  description: 'Brands ranked by how many members of a base were active on them in the window (counted activity; one-time activities do not count). See docs/brands.md.',
})
export class Crossover {
  @Field(() => Int, { description: 'Brands with at least one base member active on them (before paging).' }) totalCount!: number;
  @Field(() => Int, { description: 'The base: members active on the brand (or on any brand) in the window.' }) baseMembers!: number;
  @Field(() => [CrossoverBrand], { description: 'The page of brands: most active members first, then by brand id.' }) nodes!: CrossoverBrand[];
  @Field(() => [CrossoverEdge], { description: 'The nodes with their cursors, in the same order.' }) edges!: CrossoverEdge[];
  @Field(() => PageInfo, { description: 'Whether pages follow or precede this one, and the cursors to reach them.' }) pageInfo!: PageInfo;
}

@InputType('CrossoverFilter', { description: "What crossover counts: the base's members and activity, and the brands listed." })
export class CrossoverFilter {
  @Field(() => [String], { nullable: true, description: 'ISO 3166-1 alpha-2 codes of the members’ countries.' }) countries?: string[];
  @Field(() => [String], { nullable: true, description: 'Only activity through these networks counts, by members linked to one of them.' }) services?: string[];
  @Field(() => String, { nullable: true, description: 'Only brands of this type are listed; the base stays the same.' }) brandType?: string;
}
