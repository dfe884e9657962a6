import pino from 'pino';
import type { Config } from './config.js';
import { createRandom } from './core/random.js';
import type { DatabaseHandle } from './db/client.js';
import { buildGateway } from './http/server.js';
import { createApplicationKey, findAccountByName, listApplications, revokeApiKey } from './modules/tenancy/tenancy.service.js';

/**
 * `marquee demo seed`: fills the demo account with what its dashboard charts — two brands, their
 * activities, members with countries, genders and birth dates, their opt-ins, and records over
 * the last weeks. Every change goes through the gateway's own GraphQL operations, run in this
 * process with a key made for the run and revoked after it, so the data passes the same rules,
 * keeps the same derived totals and is metered like any application's. The data is drawn from a
 * fixed seed, so every run on a new demo account makes the same set; a demo account that already
 * has it is refused, naming the brand found.
 */
export interface SeedSize {
  members: number;
  records: number;
  /** How far back the records go. */
  days: number;
}

/** What `demo seed` makes unless told otherwise (cli.ts repeats it for its help, without loading this file). */
export const defaultSeedSize: SeedSize = { members: 40, records: 600, days: 42 };

export interface SeedSummary {
  accountId: number;
  applicationId: number;
  brands: { id: number; name: string }[];
  activities: number;
  members: number;
  optIns: number;
  records: number;
}

/** The brand whose presence marks a seeded account. */
export const seedBrandName = 'Aurora Skies';

export class SeedRefused extends Error {}

const day = 86_400_000;
const countries = ['GB', 'GB', 'US', 'US', 'US', 'FR', 'DE', 'ES', 'BR', 'JP', 'CA', 'SE'] as const;
const genders = ['M', 'F', 'F', 'M', 'OTHER', undefined] as const;
const firstNames = ['Ada', 'Bea', 'Cal', 'Dev', 'Eli', 'Fay', 'Gus', 'Hal', 'Ida', 'Jo', 'Kai', 'Lea', 'Max', 'Noa', 'Oli', 'Pia'];

export async function seedDemoAccount(
  config: Config,
  database: DatabaseHandle,
  { size = defaultSeedSize, progress = () => {}, now = Date.now() }: { size?: SeedSize; progress?: (message: string) => void; now?: number } = {},
): Promise<SeedSummary> {
  const account = await findAccountByName(database.db, 'demo');
  if (!account) throw new SeedRefused('There is no demo account: it is made by the first `npm start` on an empty database (DEMO_ACCOUNT).');
  const [application] = await listApplications(database.db, account.id);
  if (!application) throw new SeedRefused(`The demo account (${account.id}) has no application.`);

  progress(`starting an in-process gateway for the demo application ${application.id}`);
  // This gateway serves the run alone: its key's rate limit would only slow a larger seed down.
  const gateway = await buildGateway({ config: { ...config, rateLimitPerMinute: 1_000_000 }, database, logger: pino({ level: 'silent' }) });
  let keyId: number | undefined;
  try {
    const issued = await createApplicationKey(database.db, application.id);
    keyId = issued.keyId;
    const apiKey = issued.apiKey;
    const call = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
      const response = await gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload: { query, variables } });
      const body = response.json<{ data?: T; errors?: { message: string }[] }>();
      if (body.errors?.length || !body.data) throw new Error(`the gateway refused a step of the seed: ${body.errors?.map((error) => error.message).join('; ') ?? response.body}`);
      return body.data;
    };

    const existing = await call<{ brands: { nodes: { id: string; name: string }[] } }>('{ brands(first: 100) { nodes { id name } } }');
    const found = existing.brands.nodes.find((brand) => brand.name === seedBrandName);
    if (found) throw new SeedRefused(`The demo account already has the demo data (brand ${found.id}, "${seedBrandName}"): nothing was changed. Delete that brand to seed again.`);

    const random = createRandom(26);
    const brands: { id: number; name: string }[] = [];
    try {
      for (const [name, type] of [
        [seedBrandName, 'MUSIC'],
        ['Night Drive', 'MUSIC'],
      ]) {
        const { createBrand } = await call<{ createBrand: { brand: { id: string } } }>('mutation($input: BrandInput!) { createBrand(input: $input) { brand { id } } }', { input: { name, type } });
        brands.push({ id: Number(createBrand.brand.id), name });
      }
      progress(`brands: ${brands.map((brand) => `${brand.id} ${brand.name}`).join(', ')}`);

      const activity = async (input: Record<string, unknown>) =>
        Number((await call<{ createActivity: { id: string } }>('mutation($input: ActivityInput!) { createActivity(input: $input) { id } }', { input })).createActivity.id);
      const [main, other] = brands;
      const weighted = [
        ...Array<number>(6).fill(await activity({ name: 'Listen', type: 'LISTENED', service: 'spotify', brandId: String(main.id), points: 2 })),
        ...Array<number>(3).fill(await activity({ name: 'Watch', type: 'WATCHED', service: 'youtube', brandId: String(main.id), points: 3 })),
        await activity({ name: 'Share', type: 'SHARED', service: 'twitter', brandId: String(main.id), points: 5 }),
      ];
      const elsewhere = await activity({ name: `Listen (${other.name})`, type: 'LISTENED', service: 'spotify', brandId: String(other.id), points: 1 });
      progress('activities: 4');

      const memberIds: number[] = [];
      for (let index = 0; index < size.members; index += 1) {
        const profile = {
          firstName: firstNames[index % firstNames.length],
          country: random() < 0.9 ? random.pick(countries) : undefined,
          gender: random.pick(genders),
          birthDate: random() < 0.85 ? `${1960 + Math.floor(random() * 48)}-0${1 + Math.floor(random() * 9)}-15` : undefined,
        };
        const network = random.pick(['spotify', 'youtube'] as const);
        const { registerMember } = await call<{ registerMember: { member: { id: string } } }>('mutation($input: RegisterMemberInput!) { registerMember(input: $input) { member { id } } }', {
          input: { credentials: { network, uid: `demo-fan-${index + 1}`, authToken: `demo-seed-${index + 1}` }, profile: { ...profile, username: `demo_fan_${index + 1}` } },
        });
        memberIds.push(Number(registerMember.member.id));
        if ((index + 1) % 10 === 0 || index + 1 === size.members) progress(`members: ${index + 1}/${size.members}`);
      }

      let optIns = 0;
      for (const memberId of memberIds) {
        for (const [brand, share] of [
          [main, 0.7],
          [other, 0.3],
        ] as const) {
          if (random() >= share) continue;
          await call('mutation($input: OptInInput!) { optIn(input: $input) { optedInAt } }', { input: { memberId: String(memberId), brandId: String(brand.id) } });
          optIns += 1;
        }
      }
      progress(`opt-ins: ${optIns}`);

      // Each member active from a day of the window on, some far more than others; more records recently.
      const since = memberIds.map(() => Math.floor(random() ** 0.7 * size.days));
      const zeal = memberIds.map(() => random() ** 2 + 0.05);
      const zealTotal = zeal.reduce((sum, value) => sum + value, 0);
      const records = Array.from({ length: size.records }, () => {
        let draw = random() * zealTotal;
        const found = zeal.findIndex((value) => (draw -= value) < 0);
        const member = found < 0 ? memberIds.length - 1 : found;
        const completedAt = new Date(now - Math.min(since[member], size.days - 1) * random() ** 1.6 * day - random() * 3_600_000).toISOString();
        return { activityId: String(random() < 0.08 ? elsewhere : random.pick(weighted)), memberId: String(memberIds[member]), completedAt };
      });
      let stored = 0;
      for (let start = 0; start < records.length; start += 200) {
        const batch = records.slice(start, start + 200);
        const { recordActivities } = await call<{ recordActivities: { created: number } }>('mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }', { input: batch });
        stored += recordActivities.created;
        progress(`records: ${start + batch.length}/${records.length}`);
      }
      return { accountId: account.id, applicationId: application.id, brands, activities: 4, members: memberIds.length, optIns, records: stored };
    } catch (error) {
      // What was made stays (each step is the gateway's own, committed): say how to start again.
      if (!brands.length) throw error;
      throw new Error(`${(error as Error).message}\nThe seed stopped half-way; brand ${brands[0].id} ("${seedBrandName}") marks the account as seeded: delete it to run the seed again.`, { cause: error });
    }
  } finally {
    if (keyId !== undefined) await revokeApiKey(database.db, keyId);
    await gateway.close();
  }
}
