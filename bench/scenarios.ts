import type autocannon from 'autocannon';

export interface ScenarioContext {
  apiKey: string;
  accountId: number;
  busiestMemberId: number;
  brandId: number;
  activityId: number;
  /** Members to spread per-member requests over. */
  memberIds: number[];
  password: string;
}

/** Who answers: Marquee, PostGraphile over the same tables, or one hand-written SQL statement. */
export type Target = 'marquee' | 'postgraphile' | 'raw';

export interface Scenario {
  name: string;
  description: string;
  target?: Target;
  requests: autocannon.Request[];
  connections?: number;
  /** For ingestion: records per request, so the report can say records per second. */
  itemsPerRequest?: number;
}

const memberFields = `id email firstName services { network userId valid } score { points activityCount } lastActivity { id completedAt activity { name } }`;

/** Rankings by score: windows, a brand, member filters, and the total that `totalmembercount` adds. */
function rankings(brandId: number): [string, string][] {
  return [
    ['members-active-month', 'period=1%20month'],
    ['members-active-brand-month', `brandID=${brandId}&period=1%20month`],
    ['members-active-brand-6-months', `brandID=${brandId}&period=6%20months`],
    ['members-active-week-country', 'country=GB'],
    ['members-active-week-paid', 'paid_only=1'],
    ['members-active-week-optedin', `brandID=${brandId}&optedin=1`],
    ['members-active-week-total', 'totalmembercount=1'],
    ['members-active-6-months-total', 'period=6%20months&totalmembercount=1'],
  ];
}

export function scenarios(context: ScenarioContext): Scenario[] {
  const key = encodeURIComponent(context.apiKey);
  const graphql = (query: string, variables: Record<string, unknown> = {}): autocannon.Request => ({
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', 'x-api-key': context.apiKey },
    body: JSON.stringify({ query, variables }),
  });
  const get = (pathAndQuery: string): autocannon.Request => ({ method: 'GET', path: `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}apikey=${key}` });
  let member = 0;
  const nextMember = () => context.memberIds[member++ % context.memberIds.length];
  let batch = 0;
  /** The next batch of 1,000 records of now, spread over the members, each with a marker of its own. */
  const nextBatch = (by: string) => {
    batch += 1;
    return Array.from({ length: 1000 }, (_, index) => ({
      activityId: String(context.activityId),
      memberId: String(context.memberIds[(batch * 1000 + index) % context.memberIds.length]),
      marker: `bench-${by}-${process.pid}-${batch}-${index}`,
    }));
  };

  // PostGraphile cannot filter opt-ins by an unindexed column, so it lists past ones too; the
  // generated data has none, so all three answer the same members, services and opt-ins.
  const peerPage = (target: Target, request: autocannon.Request): Scenario => ({
    name: `members-page-100-plain-${target}`,
    description: `a page of 100 members by id with services and opt-ins (${target})`,
    target,
    requests: [request],
  });

  return [
    peerPage('marquee', graphql('{ members(first: 100, orderBy: ID, sort: ASC) { edges { node { id email firstName services { network userId valid } optins { id kind } } } } }')),
    peerPage('postgraphile', {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ allMembers(first: 100, condition: { accountId: ${context.accountId} }, orderBy: PRIMARY_KEY_ASC) { nodes { rowId email firstName
          memberServicesByAccountIdAndMemberId { nodes { network uid valid } } optinsByAccountIdAndMemberId { nodes { rowId kind } } } } }`,
      }),
    }),
    peerPage('raw', { method: 'GET', path: '/members' }),
    {
      name: 'member-graphql',
      description: 'member(id) with services, score and last activity (GraphQL)',
      requests: [{ ...graphql(''), setupRequest: (request) => ({ ...request, ...graphql(`query($id: ID!) { member(lookup: { id: $id }) { ${memberFields} } }`, { id: String(nextMember()) }) }) }],
    },
    {
      name: 'members-page-100-graphql',
      description: 'a page of 100 members by score with services, score and last activity (GraphQL)',
      requests: [graphql(`{ members(first: 100) { edges { node { ${memberFields} } } } }`)],
    },
    { name: 'members-active-week', description: 'GET /v1.1/members/active (one week)', requests: [get('/v1.1/members/active')] },
    { name: 'members-active-6-months', description: 'GET /v1.1/members/active?period=6 months', requests: [get('/v1.1/members/active?period=6%20months')] },
    { name: 'members-active-brand-week', description: 'GET /v1.1/members/active?brandID (one week)', requests: [get(`/v1.1/members/active?brandID=${context.brandId}`)] },
    // What a label opens every day, at every window and with the usual member filters.
    ...rankings(context.brandId).map(([name, query]) => ({ name, description: `GET /v1.1/members/active?${query}`, requests: [get(`/v1.1/members/active?${query}`)] })),
    {
      name: 'member-show-position',
      description: 'GET /v1.1/member/[id]?showposition=1 (one week)',
      requests: [{ ...get('/v1.1/member/0'), setupRequest: (request) => ({ ...request, ...get(`/v1.1/member/${nextMember()}?showposition=1`) }) }],
    },
    { name: 'activity-feed', description: 'GET /v1.1/activity/feed (one week, latest per member)', requests: [get('/v1.1/activity/feed')] },
    ...['activity', 'timeline', 'location', 'members', 'age', 'gender', 'segments'].map((report) => ({
      name: `brand-stats-${report}`,
      description: `GET /v1.1/brand/[id]/stats/${report} (one week)`,
      requests: [get(`/v1.1/brand/${context.brandId}/stats/${report}`)],
    })),
    ...['activity', 'timeline', 'location', 'members', 'age', 'gender'].map((report) => ({
      name: `brand-stats-${report}-6-months`,
      description: `GET /v1.1/brand/[id]/stats/${report}?period=6 months`,
      requests: [get(`/v1.1/brand/${context.brandId}/stats/${report}?period=6%20months`)],
    })),
    {
      name: 'member-show-rest',
      description: 'GET /v1.1/member/[id]',
      requests: [{ ...get('/v1.1/member/0'), setupRequest: (request) => ({ ...request, ...get(`/v1.1/member/${nextMember()}`) }) }],
    },
    {
      name: 'member-show-raw',
      description: 'the same member and services by one hand-written statement (raw)',
      target: 'raw',
      requests: [{ method: 'GET', path: '/member/0', setupRequest: (request) => ({ ...request, path: `/member/${nextMember()}` }) }],
    },
    {
      name: 'member-show-postgraphile',
      description: 'the same member and services as the raw route, by its primary key (PostGraphile)',
      target: 'postgraphile',
      requests: [
        {
          method: 'POST',
          path: '/graphql',
          setupRequest: (request) => ({
            ...request,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              query: `query($account: Int!, $id: Int!) { memberByAccountIdAndRowId(accountId: $account, rowId: $id) { rowId email firstName surname username gender country city verifiedEmail
                memberServicesByAccountIdAndMemberId(orderBy: PRIMARY_KEY_ASC) { nodes { rowId network uid username valid activitySharing followers likes } } } }`,
              variables: { account: context.accountId, id: nextMember() },
            }),
          }),
        },
      ],
    },
    {
      name: 'member-show-graphql',
      description: 'the same member data through GraphQL',
      requests: [
        {
          ...graphql(''),
          setupRequest: (request) => ({
            ...request,
            ...graphql(
              `query($id: ID!) { member(lookup: { id: $id }) { id email firstName surname username gender bio accessToken avatarUrl country city state postCode verifiedEmail geo { country city region lat long } jwt services { id network valid activitySharing userId username userUrl token tokenSecret lastUpdated lastLogin verifiedEmail paidAccount followers likes partnerCode partnerId domains } } }`,
              { id: String(nextMember()) },
            ),
          }),
        },
      ],
    },
    {
      name: 'member-login-email',
      description: 'POST /v1.1/member/login by email and password (argon2id)',
      requests: [
        {
          method: 'POST',
          path: '/v1.1/member/login',
          setupRequest: (request) => {
            const index = nextMember() % 1000;
            return { ...request, path: `/v1.1/member/login?apikey=${key}&service=email&email=fan${index}%40bench.example&password=${encodeURIComponent(context.password)}` };
          },
        },
      ],
    },
    {
      name: 'ingest-batch-1000',
      description: 'recordActivities with 1000 records per call',
      connections: 4,
      itemsPerRequest: 1000,
      requests: [
        {
          ...graphql(''),
          setupRequest: (request) => ({ ...request, ...graphql('mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }', { input: nextBatch('gateway') }) }),
        },
      ],
    },
    {
      name: 'ingest-batch-1000-raw',
      description: 'the same batches stored by one hand-written statement: records, rollup and kept data as the gateway writes them (raw)',
      target: 'raw',
      connections: 4,
      itemsPerRequest: 1000,
      requests: [
        {
          method: 'POST',
          path: '/records',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ input: nextBatch('raw') }) }),
        },
      ],
    },
    {
      name: 'activity-record-rest',
      description: 'POST /v1.1/activity/record, one record per request (with a marker)',
      requests: [
        {
          method: 'POST',
          path: '/v1.1/activity/record',
          setupRequest: (request) => {
            batch += 1;
            const query = `activityid=${context.activityId}&id=${nextMember()}&marker=bench-rest-${process.pid}-${batch}`;
            return { ...request, path: `/v1.1/activity/record?apikey=${key}&${query}` };
          },
        },
      ],
    },
  ];
}
