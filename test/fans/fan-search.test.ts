import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { members } from '../../src/db/schema/index.js';
import { classifySearch, maxSearchLength, searchFans, type FanHit } from '../../src/modules/fan-search/fan-search.js';
import { searchStatement } from '../../src/modules/fan-search/fan-search.queries.js';
import { createTestDatabase } from '../support/database.js';
import { insertFans, newAccount, type FanSpec } from '../support/fans.js';

/**
 * The console's fan search, against the database: each kind of input, wildcards taken literally,
 * bounds, tenancy, and every page of many searches compared with the same rules applied in
 * JavaScript to every member.
 */

let handle: DatabaseHandle;
let accountId: number;
let otherAccountId: number;

beforeAll(async () => {
  handle = await createTestDatabase();
  accountId = (await newAccount(handle.db)).accountId;
  otherAccountId = (await newAccount(handle.db)).accountId;
});
afterAll(() => handle.close());

/** Every hit of a search, page by page. */
async function allHits(account: number, text: string, first = 7): Promise<FanHit[]> {
  const hits: FanHit[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await searchFans(handle.db, account, text, { first, after });
    hits.push(...page.hits);
    if (!page.hasNextPage) return hits;
    expect(page.hits).toHaveLength(first);
    after = page.hits.at(-1)!.cursor;
  }
  throw new Error('too many pages');
}

describe('each kind of input', () => {
  let ids: number[];
  beforeAll(async () => {
    ids = await insertFans(handle.db, accountId, [
      { email: 'Ada.Lovelace@example.com', firstName: 'Ada', surname: 'Lovelace', username: 'countess', services: [{ network: 'spotify', uid: 'sp-ada' }] },
      { email: 'adam@example.com', verifiedEmail: 'adam.verified@example.org', firstName: 'Adam', surname: 'Smith', username: 'adams' },
      { email: 'grace@example.com', firstName: 'Grace', surname: 'Hopper', username: 'ada', services: [{ network: 'deezer', uid: '424242' }] },
      { email: 'ada@example.net', firstName: 'Augusta', surname: 'Ada', username: 'gus' },
    ]);
  });

  it('finds a name by prefix of first name, surname or username, exact matches first', async () => {
    const hits = await allHits(accountId, 'ada');
    expect(hits.map((hit) => [hit.member.id, hit.matchedOn, hit.exact])).toEqual([
      [ids[0], 'firstName', true],
      [ids[3], 'surname', true],
      [ids[2], 'username', true],
      [ids[1], 'firstName', false],
    ]);
    expect(classifySearch('ada').kind).toBe('name');
  });

  it('finds "first surname" as typed, any case', async () => {
    const hits = await allHits(accountId, '  ADA   love ');
    expect(hits.map((hit) => [hit.member.id, hit.matchedOn, hit.exact])).toEqual([[ids[0], 'name', false]]);
    expect((await allHits(accountId, 'ada lovelace'))[0]).toMatchObject({ matchedOn: 'name', exact: true });
  });

  it('finds an address by prefix of the email or the verified email', async () => {
    expect((await allHits(accountId, 'ADA@example.net')).map((hit) => [hit.member.id, hit.matchedOn, hit.exact])).toEqual([[ids[3], 'email', true]]);
    expect((await allHits(accountId, 'ada@')).map((hit) => hit.member.id)).toEqual([ids[3]]);
    expect((await allHits(accountId, 'adam.verified@')).map((hit) => [hit.member.id, hit.matchedOn])).toEqual([[ids[1], 'verifiedEmail']]);
    expect(classifySearch('a@b').kind).toBe('email');
  });

  it('finds digits as a member id and as a network user id, exactly', async () => {
    expect((await allHits(accountId, String(ids[2]))).map((hit) => [hit.member.id, hit.matchedOn])).toEqual([[ids[2], 'id']]);
    expect((await allHits(accountId, '424242')).map((hit) => [hit.member.id, hit.matchedOn, hit.exact])).toEqual([[ids[2], 'uid', true]]);
    // A prefix of an id or a user id is not a match: digits are exact.
    expect(await allHits(accountId, '42424')).toEqual([]);
    // Longer than any id: only user ids.
    expect(await allHits(accountId, '123456789012345')).toEqual([]);
  });

  it('finds a non-numeric network user id exactly', async () => {
    expect((await allHits(accountId, 'sp-ada')).map((hit) => [hit.member.id, hit.matchedOn])).toEqual([[ids[0], 'uid']]);
  });

  it('lists a merged member only by its exact id, flagged with its survivor', async () => {
    const [survivor, merged] = await insertFans(handle.db, accountId, [
      { email: 'keep@merge.example', firstName: 'Mergekeep' },
      { email: 'gone@merge.example', firstName: 'Mergegone' },
    ]);
    await handle.db
      .update(members)
      .set({ mergedIntoId: survivor })
      .where(and(eq(members.accountId, accountId), eq(members.id, merged)));
    expect((await allHits(accountId, 'merge')).map((hit) => hit.member.id)).toEqual([survivor]);
    expect(await allHits(accountId, 'gone@merge.example')).toEqual([]);
    const [hit] = await allHits(accountId, String(merged));
    expect(hit.member).toMatchObject({ id: merged, mergedIntoId: survivor });
  });
});

describe('bad input and other accounts', () => {
  it('takes %, _ and \\ as themselves', async () => {
    const ids = await insertFans(handle.db, accountId, [
      { firstName: '100%', email: 'x_y@wild.example' },
      { firstName: '100 percent', email: 'xzy@wild.example' },
      { firstName: 'back\\slash', email: 'xay@wild.example' },
      { firstName: 'backslash' },
    ]);
    expect((await allHits(accountId, '100%')).map((hit) => hit.member.id)).toEqual([ids[0]]);
    expect((await allHits(accountId, 'x_y@')).map((hit) => hit.member.id)).toEqual([ids[0]]);
    expect((await allHits(accountId, 'back\\')).map((hit) => hit.member.id)).toEqual([ids[2]]);
    expect(await allHits(accountId, '%')).toEqual([]);
    expect(await allHits(accountId, '_@')).toEqual([]);
  });

  it('refuses an empty search, one over the bound, control characters and bad pages, clearly', async () => {
    const refusal = (text: string, page = {}) =>
      searchFans(handle.db, accountId, text, page).then(
        () => undefined,
        (error: { extensions: { code: string; param: string }; message: string }) => ({ ...error.extensions, message: error.message }),
      );
    expect(await refusal('   ')).toMatchObject({ code: 'INVALID_PARAMETER', param: 'search' });
    expect(await refusal('a'.repeat(maxSearchLength + 1))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'search', message: expect.stringContaining(`${maxSearchLength}`) });
    expect(await refusal('ada\u0000')).toMatchObject({ code: 'INVALID_PARAMETER', param: 'search' });
    expect(await refusal('ada', { first: 51 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(await refusal('ada', { first: 0 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(await refusal('ada', { after: 'not-a-cursor' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'after' });
    expect(await refusal('12', { after: Buffer.from(JSON.stringify({ b: 9, k: null, i: 1 })).toString('base64url') })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'after' });
    // At the bound exactly, it runs.
    expect(await searchFans(handle.db, accountId, 'a'.repeat(maxSearchLength))).toMatchObject({ hits: [] });
  });

  it("never finds another account's fans, by any kind of input", async () => {
    const [theirs] = await insertFans(handle.db, otherAccountId, [
      { email: 'secret@other.example', firstName: 'Secretname', surname: 'Hidden', username: 'hiddenuser', services: [{ network: 'spotify', uid: '987654321' }] },
    ]);
    for (const text of ['secret@', 'secretname', 'hidden', 'hiddenuser', '987654321', String(theirs), 'secretname hidden']) {
      expect(await allHits(accountId, text), text).toEqual([]);
    }
    expect((await allHits(otherAccountId, 'secretname')).map((hit) => hit.member.id)).toEqual([theirs]);
  });
});

describe('compared with every member filtered in JavaScript', () => {
  let account: number;
  const specs: FanSpec[] = [];
  let ids: number[] = [];

  beforeAll(async () => {
    account = (await newAccount(handle.db, 'brute')).accountId;
    // A small alphabet, so prefixes and exact values repeat across columns and members.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = (length: number) => Array.from({ length }, () => 'abc_%'[Math.floor(random() * (random() < 0.9 ? 3 : 5))]).join('');
    const maybe = <T>(value: T) => (random() < 0.15 ? null : value);
    for (let i = 0; i < 300; i += 1) {
      const first = maybe(word(1 + Math.floor(random() * 3)));
      specs.push({
        firstName: first && (random() < 0.3 ? first.toUpperCase() : first),
        surname: maybe(word(1 + Math.floor(random() * 3))),
        username: maybe(word(2 + Math.floor(random() * 2))),
        email: maybe(`${word(2)}${i % 7}@${word(1)}.example`),
        verifiedEmail: random() < 0.2 ? `${word(2)}@v.example` : null,
        // User ids repeat across networks (one network each, so the unique key holds).
        services: random() < 0.3 ? [{ network: `net${i}`, uid: random() < 0.5 ? String(1000 + Math.floor(random() * 20)) : word(2) }] : [],
      });
    }
    ids = await insertFans(handle.db, account, specs);
    // Some members merged away: left out of every search but their exact id.
    for (const index of [5, 17, 99]) {
      await handle.db
        .update(members)
        .set({ mergedIntoId: ids[index - 1] })
        .where(and(eq(members.accountId, account), eq(members.id, ids[index])));
    }
  });

  /** The list the rules give: each member under its first matching branch; by branch, matched value (bytes), id. */
  function expected(text: string): { id: number; matchedOn: string }[] {
    const { kind, values } = classifySearch(text);
    const lower = (value: string | null | undefined) => value?.toLowerCase() ?? null;
    const t = text.toLowerCase();
    const merged = new Set([5, 17, 99].map((index) => ids[index]));
    type Branch = { match: string; test: (spec: FanSpec, id: number) => boolean; key?: (spec: FanSpec) => string; withMerged?: boolean };
    const exact = (field: keyof FanSpec, match: string): Branch => ({ match, test: (spec) => lower(spec[field] as string) === t });
    const prefix = (field: keyof FanSpec, match: string): Branch => ({ match, test: (spec) => lower(spec[field] as string)?.startsWith(t) ?? false, key: (spec) => lower(spec[field] as string)! });
    const uid: Branch = { match: 'uid', test: (spec) => (spec.services ?? []).some((service) => service.uid === text) };
    let branches: Branch[];
    if (kind === 'digits') branches = [...(values.id !== undefined ? [{ match: 'id', test: (_: FanSpec, id: number) => id === values.id, withMerged: true }] : []), uid];
    else if (kind === 'email') branches = [exact('email', 'email'), exact('verifiedEmail', 'verifiedEmail'), prefix('email', 'email'), prefix('verifiedEmail', 'verifiedEmail')];
    else {
      const pair: Branch[] =
        values.first !== undefined
          ? [{ match: 'name', test: (spec) => lower(spec.firstName) === values.first!.toLowerCase() && (lower(spec.surname)?.startsWith(values.rest!.toLowerCase()) ?? false) }]
          : [];
      branches = [
        ...pair,
        exact('firstName', 'firstName'),
        exact('surname', 'surname'),
        exact('username', 'username'),
        uid,
        prefix('firstName', 'firstName'),
        prefix('surname', 'surname'),
        prefix('username', 'username'),
      ];
    }
    const listed = specs.flatMap((spec, index) => {
      const id = ids[index];
      const branch = branches.findIndex((candidate) => candidate.test(spec, id));
      if (branch < 0 || (merged.has(id) && !branches[branch].withMerged)) return [];
      return [{ id, branch, key: branches[branch].key?.(spec) ?? '', matchedOn: branches[branch].match }];
    });
    listed.sort((a, b) => a.branch - b.branch || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.id - b.id);
    return listed.map(({ id, matchedOn }) => ({ id, matchedOn }));
  }

  it('answers exactly the same members in the same order, page after page, for many searches', async () => {
    const searches = new Set<string>([
      'a',
      'b',
      'c',
      'ab',
      'ca',
      'abc',
      'A',
      '%',
      '_',
      'a%',
      'a_',
      'b c',
      'a b',
      'ab c',
      'ab@',
      'a',
      'c@',
      '@',
      '%@',
      'ab1@',
      'ba0@a.',
      '1005',
      '1010',
      '1',
      String(ids[3]),
      String(ids[5]),
      String(ids[17]),
    ]);
    for (const spec of specs.slice(0, 40)) {
      if (spec.firstName) searches.add(spec.firstName);
      if (spec.surname) searches.add(spec.surname.slice(0, 2));
      if (spec.email) searches.add(spec.email.slice(0, 4));
      if (spec.firstName && spec.surname) searches.add(`${spec.firstName} ${spec.surname.slice(0, 1)}`);
      for (const service of spec.services ?? []) searches.add(service.uid);
    }
    let compared = 0;
    for (const text of searches) {
      const found = (await allHits(account, text, 9)).map((hit) => ({ id: hit.member.id, matchedOn: hit.matchedOn }));
      expect(found, `search "${text}"`).toEqual(expected(text.trim()));
      compared += found.length;
    }
    // The comparison compared something.
    expect(compared).toBeGreaterThan(300);
  });
});

describe('the plans', () => {
  /** The plan of each search's statement, with sequential scans off: the indexes it can use are then the ones it shows. */
  async function planOf(text: string, after?: string): Promise<string> {
    const { kind, values } = classifySearch(text);
    const cursor = after ? JSON.parse(Buffer.from(after, 'base64url').toString()) : undefined;
    const statement = searchStatement(accountId, kind, values, 21, cursor && { branch: cursor.b, key: cursor.k, id: cursor.i })!;
    return handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const rows = await executeRows<Record<string, string>>(tx, sql.raw(`explain ${inline(statement.text, statement.values)}`));
      return rows.map((row) => Object.values(row)[0]).join('\n');
    });
  }

  /** The values written into the text, so EXPLAIN plans them as the driver's unnamed statement would. */
  function inline(statement: string, params: unknown[]): string {
    return statement.replace(/\$(\d+)/g, (_, n: string) => {
      const value = params[Number(n) - 1];
      return typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
    });
  }

  it('reads each branch through the new indexes', async () => {
    // Enough rows that the planner's costs mean something (a table of a dozen rows is read whole, or by any index at all).
    await insertFans(
      handle.db,
      accountId,
      Array.from({ length: 3000 }, (_, i) => ({
        email: `filler${i}@plan.example`,
        verifiedEmail: i % 3 ? null : `v${i}@plan.example`,
        firstName: `Name${i % 400}`,
        surname: `Family${i % 300}`,
        username: `user${i}`,
        services: [{ network: 'spotify', uid: `plan-${i}` }],
      })),
    );
    await handle.db.execute(sql`analyze members`);
    await handle.db.execute(sql`analyze member_services`);
    const name = await planOf('ada');
    for (const index of ['members_account_first_name_prefix_idx', 'members_account_surname_prefix_idx', 'members_account_username_prefix_idx', 'member_services_account_uid_idx']) {
      expect(name).toContain(index);
    }
    const email = await planOf('ada@ex');
    expect(email).toContain('members_account_email_prefix_idx');
    expect(email).toContain('members_account_verified_email_prefix_idx');
    const digits = await planOf('424242');
    expect(digits).toContain('members_pkey');
    expect(digits).toContain('member_services_account_uid_idx');
    // A later page starts inside the cursor's value through the same index.
    const page = await searchFans(handle.db, accountId, 'name1', { first: 30 });
    expect(page.hits.at(-1)).toMatchObject({ matchedOn: 'firstName', exact: false });
    const later = await planOf('name1', page.hits.at(-1)!.cursor);
    expect(later).toContain('members_account_first_name_prefix_idx');
    expect(later).not.toMatch(/Seq Scan on members/);
    // No plan reads the whole members table.
    for (const plan of [name, email, digits]) expect(plan).not.toMatch(/Seq Scan on members/);
  });
});
