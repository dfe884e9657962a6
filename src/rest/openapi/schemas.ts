import { errorCatalogue, type ErrorCode } from '../../core/errors.js';

/**
 * The response bodies of `/v1.1`, as JSON Schema (OpenAPI 3.1 is JSON Schema 2020-12), written
 * after the interface's own description of its envelopes. The interface says any field may be
 * null, so every field is nullable; bodies may carry fields beyond those listed (the seed lists
 * "fields seen", and the network fields of a brand record vary by network).
 * test/rest/openapi.test.ts checks real responses against them.
 */
type Schema = Record<string, unknown>;

const text = (description?: string): Schema => ({ type: ['string', 'null'], ...(description ? { description } : {}) });
const number = (description?: string): Schema => ({ type: ['number', 'null'], ...(description ? { description } : {}) });
const flag = (description: string): Schema => ({ type: ['string', 'null'], enum: ['0', '1', null], description });
/** A schema of this file by name (the validator in the test resolves every one). */
const ref = (name: string): Schema => ({
  $ref: `#/components/schemas/${name}`,
});
const listOf = (items: Schema): Schema => ({ type: 'array', items });
const object = (properties: Record<string, Schema>, required: string[] = Object.keys(properties), description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required,
});
/** The seed's "one-element array" bodies. */
const single = (schema: Schema): Schema => ({ type: 'array', items: schema, minItems: 1, maxItems: 1 });
const timestamp = text("'YYYY-MM-DD HH:MM:SS' in UTC");

const optInRecord = object({ ID: text(), Type: text('Brand, Segment or Global'), SegmentID: text('the list opted into: the segment, or the brand of a brand list'), Label: text(), Name: text() }, [
  'ID',
  'Type',
]);

const serviceRecord = object(
  {
    Service: text('network identifier (in listings, the network named in full)'),
    Valid: flag("'1' when the link to the network is currently valid"),
    ActivitySharing: flag("'1' enabled, '0' disabled"),
    ID: text('service record id'),
    UserID: text('the user id on that network'),
    Username: text(),
    UserURL: text(),
    Token: text(),
    TokenSecret: text(),
    LastUpdated: timestamp,
    LastLogin: timestamp,
    VerifiedEmail: text(),
    PaidAccount: flag("'1' for a paid account on that network"),
    Followers: text('count'),
    Likes: text('count'),
    PartnerCode: text(),
    PartnerID: text(),
    Domains: { type: ['array', 'null'], items: { type: 'string' } },
    Expires: { ...timestamp, description: 'listings only: when the token expires' },
  },
  ['Service', 'Valid', 'ID'],
);

const memberRecord = object(
  {
    ID: { type: 'number', description: 'member id' },
    Email: text(),
    FirstName: text(),
    Surname: text(),
    Username: text(),
    Gender: { type: ['string', 'null'], enum: ['M', 'F', 'Other', null] },
    Bio: text(),
    AccessToken: text("the member's access token (for /v1.1/auth and merges)"),
    AvatarURL: text(),
    Country: text('ISO 3166-1 alpha-2'),
    City: text(),
    State: text(),
    PostCode: text(),
    Website: text('as given to update'),
    CountryCode: text(),
    GeoCountry: text(),
    GeoCity: text(),
    GeoRegion: text(),
    GeoLat: { type: ['string', 'number', 'null'] },
    GeoLong: { type: ['string', 'number', 'null'] },
    VerifiedEmail: text(),
    Extended: { type: 'object', description: 'the extended node: member show and auth with extended=1, or dotted fields' },
    AEPosition: { type: ['string', 'number', 'null'], description: 'member show with showposition=1: the position below 1000, 999+ above' },
  },
  ['ID'],
);

const memberEnvelope = object(
  {
    data: ref('MemberRecord'),
    optins: listOf(ref('OptInRecord')),
    services: listOf(ref('ServiceRecord')),
    jwt: text('a signed token (JWT) for the member, issued on each such response'),
    actions: { ...listOf(ref('FeedItem')), description: 'member show with showactions=1: the latest actions' },
    brands: { ...listOf(object({ ID: text(), Name: text(), Type: text(), Score: text(), ActivityCount: text() }, ['ID'])), description: 'member show with showbrands=1: the top brands' },
  },
  ['data', 'optins', 'services', 'jwt'],
);

/** `/v1.1/auth`: the lean view; `details=1` adds the linked services, never their tokens. */
const authEnvelope = object(
  {
    data: ref('MemberRecord'),
    optins: listOf(ref('OptInRecord')),
    services: {
      ...listOf(ref('ServiceRecord')),
      description: 'details=1 only: the linked services, without Token and TokenSecret',
    },
    jwt: text('a signed token (JWT) for the member'),
  },
  ['data', 'optins', 'jwt'],
);

const listingItem = object(
  {
    ID: text(),
    UUID: text(),
    FirstName: text(),
    Surname: text(),
    Email: text(),
    Services: { type: 'array', items: ref('ServiceRecord') },
    OptIns: { type: ['array', 'null'], items: ref('OptInRecord') },
    Score: text('members/active and members/login'),
    ActivityCount: text('members/active and members/login'),
    BirthDate: text('members/all: yyyy-mm-dd'),
    Joined: { ...timestamp, description: 'members/all' },
    LastActivity: { type: ['object', 'null'] },
    Brand: { type: ['object', 'null'] },
    Extended: { type: 'object' },
  },
  ['ID'],
  'A member listing item; `fields` keeps the named fields only (and ID).',
);

const pagingLinks = object(
  {
    next: text("the next page, null when there is none: the caller's own parameters with the paging ones replaced and no apiKey or accessToken: send the key again"),
    previous: text('the previous page, null when there is none'),
  },
  ['next', 'previous'],
  'links to the next and previous pages',
);

/**
 * `totalSize` and `totalmembercount` are JSON integers on every listing: they describe the body,
 * as `total` of the registration totals and `TotalCount` of the timeline (numbers in the interface)
 * do, not a record; docs/rest-reference.md gives the reasons.
 */
const listingPageOf = (paging: Schema): Schema =>
  object({ totalSize: { type: 'integer' }, items: listOf(ref('ListingItem')), paging, totalmembercount: { type: 'integer', description: 'with totalmembercount=1' } }, ['totalSize', 'items', 'paging']);

const listingPage = listingPageOf(ref('PagingLinks'));

/** members/login: the seed's sample shows paging as an empty array when there is no other page. */
const loginListingPage = listingPageOf({ oneOf: [ref('PagingLinks'), { type: 'array', maxItems: 0 }], description: 'the links, or an empty array when there is no other page (as the interface shows it)' });

const feedItem = object(
  {
    ID: text(),
    Marker: text(),
    BrandID: text(),
    BrandName: text(),
    Link: text(),
    Media: text(),
    Category: text(),
    Content: { type: ['object', 'null'], description: 'depends on the activity' },
    CompleteDate: timestamp,
    Name: text(),
    ShortName: text(),
    GeoData: { type: ['object', 'null'] },
    MemberName: text(),
    Value: text(),
    ActivityID: text(),
    ActivityType: text('for example Listened'),
    ServiceType: text('network identifier'),
    MemberID: text(),
    ServiceUserName: text(),
    RemoteUserURL: text(),
    ServiceUserID: text(),
    MemberEmail: text(),
    Username: text(),
    MemberAvatarURL: text(),
  },
  ['ID', 'ActivityID', 'MemberID', 'CompleteDate'],
);

const brandRecord = {
  ...object(
    {
      ID: { type: 'number' },
      Slug: text(),
      Name: text(),
      Type: text('Music, Sport, Consumer, Movie, TV, Video Game, Influencer (others appear in listings)'),
      OfficialWebsiteURL: text(),
      WikipediaURL: text(),
      ImageURL: text(),
      HashTag: text(),
      Custom: { type: ['object', 'null'], description: 'enterprise custom fields' },
      Warnings: { ...listOf(object({ Param: text(), Message: text() })), description: 'create and edit: what could not be read from the URLs given' },
    },
    ['ID', 'Name'],
  ),
  description: 'A brand record; per-network fields follow the form <Network>URL, <Network>ID and, for some networks, the name on it.',
  additionalProperties: { type: ['string', 'null'] },
};

const countText = text('a count');

/** Beside a brand report's fields: whether its window was cut to six months, and the sentence saying so. */
const clampFields = {
  clamped: { type: 'boolean', description: 'true when the window asked for was longer than six months and was cut to them' },
  notice: text('what was cut, when clamped'),
};

const flagOf = (description: string): Schema => ({ type: 'string', enum: ['0', '1'], description });
const page = (items: Schema): Schema => object({ totalSize: { type: 'integer' }, items: listOf(items) });

const appInfo = object(
  {
    ID: { type: 'string' },
    AccountID: { type: 'string' },
    Name: { type: 'string' },
    Plan: { type: 'string', enum: ['basic', 'advanced', 'enterprise'] },
    Created: { type: 'string', description: "'YYYY-MM-DD HH:MM:SS' in UTC" },
    Whitelist: { type: 'array', items: { type: 'string' }, description: 'hosts the sign-in widget may run on and return to' },
    LoginURL: { type: 'string', description: 'the hosted sign-in page' },
    RegisterURL: { type: 'string', description: 'the hosted registration page' },
    LogoutURL: { type: 'string' },
    Widget: object({ URL: { type: 'string', description: 'the widget script' } }),
    Urls: listOf(object({ Name: { type: 'string' }, URL: { type: 'string' } })),
  },
  undefined,
  "The key's application: its plan, whitelist and sign-in URLs.",
);

const activityDefinition = object(
  {
    ID: { type: 'string' },
    Name: { type: 'string' },
    ShortName: text(),
    Type: { type: 'string' },
    Service: text('network identifier'),
    BrandID: text(),
    Points: { type: 'string', description: 'a count' },
    OneTime: flagOf("'1' when it counts once per member"),
    URL: text(),
    TrackIDs: listOf({ type: 'string' }),
    AlbumIDs: listOf({ type: 'string' }),
    Created: timestamp,
  },
  ['ID', 'Name', 'Type', 'Points', 'OneTime', 'TrackIDs', 'AlbumIDs'],
);

const segmentRecord = object(
  {
    ID: { type: 'string' },
    Name: { type: 'string' },
    Label: text(),
    Type: { type: 'string', enum: ['list', 'filter'] },
    BrandID: text(),
    Filter: { type: ['object', 'null'], description: 'filter segments: the member filter' },
    Created: { type: 'string' },
  },
  ['ID', 'Name', 'Type', 'Created'],
);

const presaveJob = object(
  {
    ID: { type: 'string' },
    SegmentID: { type: 'string' },
    Status: { type: 'string' },
    Runs: countText,
    Items: listOf(object({ Service: { type: 'string' }, Type: { type: 'string' }, ID: { type: 'string' } })),
    Created: { type: 'string' },
    Started: timestamp,
    Finished: timestamp,
    Saved: countText,
    Skipped: countText,
    Failed: countText,
    Pending: countText,
    Results: listOf(object({ MemberID: { type: 'string' }, Service: { type: 'string' }, Status: { type: 'string' }, Reason: text() })),
  },
  ['ID', 'SegmentID', 'Status', 'Items', 'Results'],
);

const activityCounts = (own: Record<string, Schema>) => page(object({ Date: { type: 'string', description: 'yyyy-mm-dd' }, ...own, Count: countText, DistinctMembers: countText, Points: countText }));

const memberTimeline = (count: string, total: string) =>
  object({
    days: listOf(object({ Date: { type: 'string', description: 'yyyy-mm-dd' }, [count]: countText, DistinctMembers: countText })),
    [total]: { type: 'number' },
    TotalMembers: { type: 'number' },
  });

/** Every body the document names, by the name a route's `response` gives. */
export const responseSchemas = {
  MemberEnvelope: memberEnvelope,
  AuthEnvelope: authEnvelope,
  MemberEnvelopeArray: { ...single(ref('MemberEnvelope')), description: 'register: the member envelope inside a one-element array' },
  MemberRecord: memberRecord,
  ServiceRecord: serviceRecord,
  OptInRecord: optInRecord,
  Result: object({ Result: { type: ['boolean', 'string'] } }, ['Result']),
  Domains: listOf(object({ Domain: text(), FirstVisit: timestamp, LastVisit: timestamp, UserAgent: text('the useragent given with the latest registration or login there') })),
  ListingItem: listingItem,
  PagingLinks: pagingLinks,
  ListingPage: listingPage,
  LoginListingPage: loginListingPage,
  ListingPageArray: single(ref('ListingPage')),
  FeedItem: feedItem,
  FeedPageArray: single(object({ totalSize: { type: 'integer' }, items: listOf(ref('FeedItem')) })),
  BrandRecord: brandRecord,
  CrossoverPage: object({
    totalSize: { type: 'integer' },
    items: listOf({ allOf: [ref('BrandRecord'), object({ ActiveMembers: countText, Percentage: text('a decimal, such as 12.50') })] }),
  }),
  BrandActivityStats: single(
    object({
      totalSize: { type: 'integer' },
      items: listOf(object({ ActivityID: text(), BrandID: text(), SegmentName: text(), Activity: text(), ServiceType: text(), Count: countText, DistinctMembers: countText })),
      TotalCount: countText,
      TotalMembers: countText,
      ...clampFields,
    }),
  ),
  BrandTimelineStats: single(
    object({
      services: listOf(
        object({
          service: text(),
          range: listOf(object({ Date: text('yyyy-mm-dd'), DayofYear: text(), Count: countText, DistinctMembers: countText })),
          TotalCount: number(),
          TotalMembers: number(),
        }),
      ),
      ...clampFields,
    }),
  ),
  BrandLocationStats: object({
    TotalActivities: number(),
    TotalMembers: number(),
    Countries: listOf(object({ Country: text('alpha-2'), CountryName: text(), Actions: countText, Members: countText })),
    ...clampFields,
  }),
  BrandMemberStats: object({ ActiveMembers: number(), InactiveMembers: number(), TotalMembers: number(), Groups: listOf({ type: 'object' }), ...clampFields }, [
    'ActiveMembers',
    'InactiveMembers',
    'TotalMembers',
  ]),
  RegistrationChannels: object({ channels: listOf(object({ service: text(), signups: countText })), total: { type: 'number' } }),
  Usage: single(
    object(
      {
        start_date: timestamp,
        end_date: timestamp,
        timezone: text('UTC'),
        interval: text('per hour, per day or per month'),
        hits_total: { type: 'object', properties: { TotalHitsForPeriod: { type: 'number' } }, required: ['TotalHitsForPeriod'] },
        hits_per_application: listOf({ type: 'object', properties: { ApplicationName: text(), TotalHitsForPeriod: { type: 'number' } } }),
      },
      ['start_date', 'end_date', 'timezone', 'interval', 'hits_total', 'hits_per_application'],
    ),
  ),
  AppInfo: appInfo,
  Whitelist: object({ ID: { type: 'string' }, Whitelist: listOf({ type: 'string' }) }),
  NetworkVerificationSwitch: object({ ID: { type: 'string' }, NetworkVerification: { type: 'string', enum: ['verify', 'trust'] } }),
  SignInErrorsSwitch: object({ ID: { type: 'string' }, SignInErrors: { type: 'string', enum: ['distinct', 'uniform'] } }),
  BrandCustomFieldsSwitch: object({ ID: { type: 'string' }, BrandCustomFields: { type: 'boolean' } }),
  ActivityDefinition: activityDefinition,
  ActivityDefinitionList: page(ref('ActivityDefinition')),
  ActivityRecorded: object({
    Result: { type: 'boolean' },
    RecordID: text('null when queued (async=1)'),
    CompleteDate: timestamp,
    Repeated: { type: 'boolean', description: 'true when the marker was recorded before: nothing new' },
    Queued: { type: 'boolean' },
  }),
  ActivityCheck: object({ Result: { type: 'boolean' }, Details: object({ Count: countText, FirstDate: timestamp, LastDate: timestamp }) }),
  ActivityRecordsDeleted: object({ Result: { type: 'boolean' }, Deleted: countText }),
  DailyActivityCounts: activityCounts({ ActivityID: { type: 'string' }, Activity: text() }),
  ServiceActivityCounts: activityCounts({ ServiceType: text('network identifier') }),
  BrandList: page(ref('BrandRecord')),
  SegmentRecord: segmentRecord,
  SegmentList: page(ref('SegmentRecord')),
  PresaveJob: presaveJob,
  BrandAgeStats: page(object({ Range: { type: 'string' }, Members: countText })),
  BrandGenderStats: page(object({ Gender: text(), Members: countText })),
  BrandSegmentStats: page(object({ SegmentID: { type: 'string' }, Name: { type: 'string' }, Members: countText, Activities: countText })),
  RegistrationDomains: object({ domains: listOf(object({ domain: text(), signups: countText, members: countText })), total: { type: 'number' } }),
  RegistrationTimeline: object({ timeline: listOf(object({ date: { type: 'string', description: 'yyyy-mm-dd' }, signups: countText })), total: { type: 'number' } }),
  RegistrationTotals: object({ registrations: { type: 'number' }, logins: { type: 'number' }, members: { type: 'number' } }),
  MemberActivityTimeline: memberTimeline('Count', 'TotalCount'),
  MemberVisitTimeline: memberTimeline('Visits', 'TotalVisits'),
  TopDomains: page(object({ Domain: text(), Members: countText, Visits: countText })),
  MemberExport: object(
    {
      schemaVersion: { type: 'integer', description: 'the layout of this document (docs/privacy.md)' },
      exportedAt: { type: 'string', description: 'ISO 8601' },
      accountId: { type: 'integer' },
      memberId: { type: 'integer' },
      mergedMemberIds: listOf({ type: 'integer' }),
      profile: { type: 'object', description: "every column of the member's profile; times in ISO 8601" },
      services: listOf({ type: 'object' }),
      optIns: listOf({ type: 'object' }),
      segments: listOf({ type: 'object' }),
      domains: listOf({ type: 'object' }),
      activityRecords: listOf({ type: 'object' }),
      loginEvents: listOf({ type: 'object' }),
      sessions: listOf({ type: 'object' }),
      signInTokens: listOf({ type: 'object' }),
      emails: listOf({ type: 'object' }),
      emailLinks: listOf({ type: 'object' }),
      presaveResults: listOf({ type: 'object' }),
      auditEvents: listOf({ type: 'object' }),
    },
    undefined,
    'Everything stored about a member (GDPR articles 15 and 20), one document; docs/privacy.md describes each part.',
  ),
  AuditLog: object({
    totalSize: { type: 'integer', description: 'entries on this page' },
    items: listOf(
      object(
        {
          ID: { type: 'string' },
          Time: timestamp,
          ActorType: { type: 'string', enum: ['staff', 'api_key', 'system'] },
          ActorID: text("the key's or the staff member's id; null for system"),
          ActorLabel: text("the application's name, the staff member's email, or the command (cli)"),
          Action: { type: 'string', description: 'fan.edit, fan.merge, fan.erase, fan.export, fan.sessions_end, fan.reset_sent, key.create, … (docs/console.md)' },
          TargetType: text('fan, staff, key, application, segment or account'),
          TargetID: text("a fan's member id, a key's id, …"),
          Outcome: { type: 'string', enum: ['success', 'denied', 'failed'] },
          Details: { type: 'object', description: "names, counts and ids; never a fan's personal data" },
          IP: text(),
          UserAgent: text(),
          RequestID: text(),
        },
        ['ID', 'Time', 'ActorType', 'Action', 'Outcome'],
      ),
    ),
    hasMore: { type: 'boolean' },
    nextCursor: text('pass as cursor for the next page; null on the last'),
  }),
} satisfies Record<string, Schema>;

export type ResponseSchemaName = keyof typeof responseSchemas;

const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

/** The error body every failure answers (src/rest/errors.ts), with the catalogue's names and numbers. */
export const errorSchema: Schema = object(
  {
    error: object(
      {
        code: { type: 'integer', enum: [...new Set(errorCodes.map((code) => errorCatalogue[code].aeCode))], description: 'the number of the error (several names share 5 and 20)' },
        type: { type: 'string', enum: errorCodes, description: 'the name of the error' },
        message: { type: 'string' },
        param: { type: ['string', 'null'], description: 'the parameter at fault, by the name the caller sent' },
        requestId: { type: 'string', description: 'on unexpected errors: quote it when reporting' },
      },
      ['code', 'type', 'message', 'param'],
    ),
  },
  ['error'],
);
