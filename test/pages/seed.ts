import { createRandom } from '../../src/core/random.js';
import { loginEvents } from '../../src/db/schema/index.js';
import { createActivity, insertBrand, insertMembers, record, type RecordSpec } from '../support/activity-data.js';
import type { Tenant, TestGateway } from '../support/gateway.js';

const day = 86_400_000;
const hour = 3_600_000;

/** Where the standard windows start: no record is put within an hour of one, so a test comparing two reads seconds apart never sees a record slip out. */
function windowStarts(now: number): number[] {
  const monthsBack = (months: number) => {
    const date = new Date(now);
    date.setUTCMonth(date.getUTCMonth() - months);
    return date.getTime();
  };
  return [now - day, now - 7 * day, monthsBack(1), monthsBack(3), monthsBack(6)];
}
const countries = ['GB', 'GB', 'US', 'US', 'US', 'FR', 'DE', 'ES', 'BR', 'JP', 'CA', 'SE'] as const;
const genders = ['M', 'F', 'F', 'M', 'Other', undefined] as const;

export interface DashboardSeed {
  brandId: number;
  otherBrandId: number;
  memberIds: number[];
  /** Records on the main brand, every one of them within the last 175 days. */
  brandRecords: number;
  /** Registrations of the account, every one within the last 175 days. */
  registrations: number;
}

/**
 * Members with countries, genders and birth dates, their records on a brand over the last six
 * months (more of them recently, fewer members the further back), and their registrations and
 * sign-ins: a data set the dashboard's every chart has something to show for.
 */
export async function seedDashboard(t: TestGateway, tenant: Tenant, size = { members: 48, records: 700 }): Promise<DashboardSeed> {
  const random = createRandom(18);
  const now = Date.now();
  const starts = windowStarts(now);
  const brandId = await insertBrand(t, tenant, 'Aurora Skies');
  const otherBrandId = await insertBrand(t, tenant, 'Night Drive');
  const activities = [
    { id: await createActivity(t, tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brandId, points: 2 }), weight: 6 },
    { id: await createActivity(t, tenant, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: brandId, points: 3 }), weight: 3 },
    { id: await createActivity(t, tenant, { name: 'Share', type: 'Shared', service: 'twitter', brandid: brandId, points: 5 }), weight: 1 },
  ];
  const elsewhere = await createActivity(t, tenant, { name: 'Listen (Night Drive)', type: 'Listened', service: 'spotify', brandid: otherBrandId, points: 1 });
  const weighted = activities.flatMap((activity) => Array<number>(activity.weight).fill(activity.id));

  const memberIds = await insertMembers(
    t,
    tenant,
    Array.from({ length: size.members }, () => ({
      country: random() < 0.9 ? random.pick(countries) : undefined,
      gender: random.pick(genders),
      birthDate: random() < 0.85 ? `${1955 + Math.floor(random() * 53)}-0${1 + Math.floor(random() * 9)}-15` : undefined,
      network: random.pick(['spotify', 'youtube', 'email'] as const),
    })),
  );

  // Each member is active from a day of the last 175 days on; some members far more than others.
  const specs: RecordSpec[] = [];
  const since = memberIds.map(() => Math.floor(random() ** 0.7 * 175));
  const zeal = memberIds.map(() => random() ** 2 + 0.05);
  const zealTotal = zeal.reduce((sum, value) => sum + value, 0);
  let brandRecords = 0;
  while (specs.length < size.records) {
    let draw = random() * zealTotal;
    const index = zeal.findIndex((value) => (draw -= value) < 0);
    const member = index < 0 ? memberIds.length - 1 : index;
    // Days back from now, more records recently: skewed towards 0, never before the member started.
    const daysBack = Math.min(since[member], 174) * random() ** 1.6;
    const at = now - daysBack * day - random() * hour;
    if (starts.some((start) => Math.abs(at - start) < hour)) continue;
    const completedAt = new Date(at).toISOString();
    const onOtherBrand = random() < 0.08;
    if (!onOtherBrand) brandRecords += 1;
    specs.push({ activityId: onOtherBrand ? elsewhere : random.pick(weighted), memberId: memberIds[member], completedAt });
  }
  for (let start = 0; start < specs.length; start += 500) await record(t, tenant, specs.slice(start, start + 500));

  // Fans who registered in the last three weeks and have done nothing on a brand yet.
  const newcomers = await insertMembers(
    t,
    tenant,
    Array.from({ length: Math.round(size.members / 4) }, () => ({ country: random.pick(countries), network: 'email' })),
  );
  const newcomerSince = newcomers.map(() => Math.floor(random() * 21));

  // Every member registered on the day they started; some signed in again since.
  const events = [...memberIds, ...newcomers].flatMap((memberId, index) => {
    const registered = now - (index < memberIds.length ? since[index] : newcomerSince[index - memberIds.length]) * day - 5 * hour;
    const visit = (kind: 'register' | 'login', at: number) => ({ accountId: tenant.accountId, memberId, kind, network: 'spotify', domain: 'fans.example.com', createdAt: new Date(at) }) as const;
    return [visit('register', registered), ...Array.from({ length: Math.floor(random() * 4) }, () => visit('login', registered + random() * (now - registered)))];
  });
  await t.database.db.insert(loginEvents).values(events);
  return { brandId, otherBrandId, memberIds, brandRecords, registrations: memberIds.length + newcomers.length };
}
