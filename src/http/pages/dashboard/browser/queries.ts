// The dashboard's GraphQL documents: plain queries of the public schema (schema.graphql), so they
// pass the same key check, rate limit and cost limit as any client's.

export const signInQuery = /* GraphQL */ `
  query DashboardSignIn {
    application { id name plan }
    brands(first: 100) { totalCount nodes { id name type } }
  }
`;

export interface SignInData {
  application: { id: string; name: string; plan: string };
  brands: { totalCount: number; nodes: Brand[] };
}

export interface Brand {
  id: string;
  name: string;
  type: string;
}

export const dashboardQuery = /* GraphQL */ `
  query Dashboard($brandId: ID!, $window: WindowInput!, $brand: MemberFilter!) {
    brandStats(brandId: $brandId) {
      members(window: $window) { activeMembers inactiveMembers totalMembers }
      activity(window: $window, groupBy: ACTIVITY, limit: 10) { items { activityId activity service count distinctMembers } }
      timeline(window: $window) { service totalCount totalMembers days { date count distinctMembers } }
      location(window: $window) { totalActivities totalMembers countries { country countryName members actions } }
      age(window: $window) { range members }
      gender(window: $window) { gender members }
    }
    registrationStats(window: $window) {
      totals { registrations logins members }
      timeline { totalCount days { date count } }
    }
    members(filter: $brand, window: $window, first: 10, orderBy: SCORE) {
      totalCount
      edges { node { id firstName surname username country score { points activityCount } } }
    }
  }
`;

export interface DashboardData {
  brandStats: {
    members: { activeMembers: number; inactiveMembers: number; totalMembers: number };
    activity: { items: { activityId: string | null; activity: string | null; service: string | null; count: number; distinctMembers: number }[] };
    timeline: { service: string | null; totalCount: number; totalMembers: number; days: { date: string; count: number; distinctMembers: number }[] }[];
    location: { totalActivities: number; totalMembers: number; countries: { country: string; countryName: string | null; members: number; actions: number }[] };
    age: { range: string; members: number }[];
    gender: { gender: string; members: number }[];
  };
  registrationStats: {
    totals: { registrations: number; logins: number; members: number };
    timeline: { totalCount: number; days: { date: string; count: number }[] };
  };
  members: {
    totalCount: number;
    edges: { node: TopMember }[];
  };
}

export interface TopMember {
  id: string;
  firstName: string | null;
  surname: string | null;
  username: string | null;
  country: string | null;
  score: { points: number; activityCount: number };
}
