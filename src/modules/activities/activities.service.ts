import { jsonDepthExceeds, maxStoredJsonDepth } from '../../lib/json-depth.js';
import { activityTypes } from './activity-types.js';
import type { Executor } from '../../db/client.js';
import type { ActivityTracking as TrackingRow } from '../../db/schema/index.js';
import { filterId } from '../../filters/compile.js';
import { AppError, invalidParameter, missingParameter, throwMissing, notFound } from '../../core/errors.js';
import { validateAll } from '../../core/user-errors.js';
import { validateAllAsync } from '../../core/user-errors.js';
import { databaseUnavailable, memberMergedMeanwhile, retryTransaction } from '../../db/errors.js';
import { currentRoundTripCounter, withRoundTripCount, type RoundTripCounter } from '../../db/roundtrips.js';
import { geoColumns, locate, type GeoLocation } from '../../lib/geoip.js';
import { lookupMember } from '../members/members.service.js';
import { lookupOfRef, type MemberRef } from '../members/members.types.js';
import { isLoginNetwork } from '../networks/networks.js';
import { retypeActivity } from '../score-windows/score-window-activities.queries.js';
import * as q from './activities.queries.js';
import { insertCheckedRecords, insertCheckedRecordsInSteps, type InputColumns } from './checked-records.queries.js';
import { publishRecorded } from './live-feed.js';
import type { DefinitionRow, NewRecordRow, RecordRow } from './activities.queries.js';
import type { ActivityInput, ActivityTrackingInput, EditActivityInput, RecordActivityInput } from './activities.types.js';

export interface ActivityScope {
  db: Executor;
  accountId: number;
  applicationId: number;
}

export { activityTypes };

/** At most this many records per batch call. */
export const maxBatchSize = 1000;
/** How deep a record's `content` may nest (lib/json-depth.ts says why). */
export const maxContentDepth = maxStoredJsonDepth;

export function text(value: string | undefined, param: string, max: number): string | undefined {
  const trimmed = value?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  if (trimmed.length > max) throw invalidParameter(param, `expected at most ${max} characters`);
  return trimmed;
}

function activityType(value: string): string {
  const match = activityTypes.find((type) => type.toLowerCase() === value.trim().toLowerCase());
  if (!match) throw invalidParameter('type', `expected one of ${activityTypes.join(', ')}`);
  return match;
}

export function network(value: string | undefined, param: string): string | undefined {
  const name = value?.trim().toLowerCase();
  if (!name) return undefined;
  if (!isLoginNetwork(name)) throw invalidParameter(param, 'expected a network identifier such as spotify or youtube');
  return name;
}

function points(value: number | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 1_000_000) throw invalidParameter('points', 'expected a whole number from 0 to 1000000');
  return value;
}

/** The tracking details, every field checked (validateAll), each problem under its field. */
function tracking(input: ActivityTrackingInput | undefined): TrackingRow | undefined {
  if (!input) return undefined;
  const ids = (values: string[] | undefined, param: string) => {
    const cleaned = values?.map((value) => value.trim()).filter(Boolean) ?? [];
    if (cleaned.some((value) => value.length > 200)) throw invalidParameter(param, 'expected ids of at most 200 characters');
    return cleaned;
  };
  const { url, trackIds, albumIds } = validateAll(
    {
      url: () => {
        const url = text(input.url, 'url', 2000);
        if (url && !/^https?:\/\/\S+$/i.test(url)) throw invalidParameter('url', 'expected an http(s) URL');
        return url;
      },
      trackIds: () => ids(input.trackIds, 'trackids'),
      albumIds: () => ids(input.albumIds, 'albumids'),
    },
    (key) => [key],
  );
  return { ...(url ? { url } : {}), trackIds, albumIds };
}

export async function checkedBrand(scope: ActivityScope, value: string | undefined): Promise<number | null | undefined> {
  const brandId = filterId(value, 'brandId');
  if (!brandId) return undefined;
  if (!(await q.existingBrandIds(scope.db, scope.accountId, [brandId])).has(brandId)) throw notFound('Brand', 'brandId');
  return brandId;
}

export async function listActivities(scope: ActivityScope, brandIdValue?: string) {
  const brandId = await checkedBrand(scope, brandIdValue);
  return q.listDefinitions(scope.db, scope.accountId, brandId ?? undefined);
}

/** The GraphQL input path of a check of an activity's input: `typeGiven` and `type` both check its type. */
const inputPath = (key: string) => ['input', key === 'typeGiven' ? 'type' : key];

/** Every field is checked (each problem under its input path), in the order REST reports the first. */
export async function createActivity(scope: ActivityScope, input: ActivityInput): Promise<DefinitionRow> {
  const checked = await validateAllAsync(
    {
      name: () => text(input.name, 'name', 200) ?? throwMissing('name'),
      typeGiven: () => {
        if (!input.type?.trim()) throw missingParameter('type');
      },
      shortName: () => text(input.shortName, 'shortName', 100) ?? null,
      type: () => (input.type?.trim() ? activityType(input.type) : undefined),
      service: () => network(input.service, 'service') ?? null,
      points: () => points(input.points) ?? 1,
      tracking: () => tracking(input.tracking) ?? {},
      brandId: () => checkedBrand(scope, input.brandId),
    },
    inputPath,
  );
  const { typeGiven: _typeGiven, type, brandId, ...values } = checked;
  return q.insertDefinition(scope.db, { ...values, accountId: scope.accountId, type: type!, oneTime: input.oneTime ?? false, brandId: brandId ?? null });
}

export async function editActivity(scope: ActivityScope, id: number, input: EditActivityInput): Promise<DefinitionRow> {
  const { brandId, ...values } = await validateAllAsync(
    {
      name: () => (input.name === undefined ? undefined : (text(input.name, 'name', 200) ?? throwMissing('name'))),
      shortName: () => (input.shortName === undefined ? undefined : (text(input.shortName, 'shortName', 100) ?? null)),
      // GraphQL lets a caller send null for an optional field; a type cannot be cleared, so null is refused like any other non-type.
      type: () => (input.type === undefined ? undefined : activityType(input.type ?? '')),
      service: () => (input.service === undefined ? undefined : (network(input.service, 'service') ?? null)),
      points: () => points(input.points),
      tracking: () => tracking(input.tracking),
      brandId: () => checkedBrand(scope, input.brandId),
    },
    inputPath,
  );
  const row = await scope.db.transaction(async (tx) => {
    // The reports' type groups count the activity's members under its type: they move with it.
    const current = values.type === undefined ? undefined : await q.findLiveDefinition(tx, scope.accountId, id);
    if (current && current.type !== values.type) await retypeActivity(tx, scope.accountId, id, values.type!);
    return q.updateDefinition(tx, scope.accountId, id, { ...values, ...(brandId ? { brandId } : {}) });
  });
  if (!row) throw notFound('Activity', 'id');
  return row;
}

/** Deleting a definition keeps its records: scores and history still count them. */
export async function deleteActivity(scope: ActivityScope, id: number): Promise<boolean> {
  const row = await q.updateDefinition(scope.db, scope.accountId, id, { deletedAt: new Date() });
  if (!row) throw notFound('Activity', 'id');
  return true;
}

// ——— recording ———

const maxFuture = 5 * 60_000;

/** A record's ids as given, checked for form: what the lookups of its batch ask for. */
interface AskedRecord {
  input: RecordActivityInput;
  activityId: number;
  memberId: number | undefined;
  partner: { code: string; id: string } | undefined;
  brandId: number | undefined;
}

/** The ids of a batch, checked for form in the order the interface reports them (every record's activity first, …). */
function askedRecords(inputs: readonly RecordActivityInput[]): AskedRecord[] {
  const activityIds = inputs.map((input) => filterId(input.activityId, 'activityId') ?? throwMissing('activityId'));
  const memberIds = inputs.map((input) => filterId(input.memberId, 'memberId'));
  const partners = inputs.map((input, index) => (memberIds[index] === undefined ? partnerRef(input) : undefined));
  const brandIds = inputs.map((input) => filterId(input.brandId, 'brandId'));
  return inputs.map((input, index) => ({ input, activityId: activityIds[index], memberId: memberIds[index], partner: partners[index], brandId: brandIds[index] }));
}

function lookUp(scope: ActivityScope, asked: readonly AskedRecord[]): Promise<q.RecordLookups> {
  return q.recordLookups(scope.db, scope.accountId, {
    activityIds: asked.map((record) => record.activityId),
    memberIds: asked.flatMap((record) => (record.memberId === undefined ? [] : [record.memberId])),
    partnerRefs: asked.flatMap((record) => (record.partner ? [record.partner] : [])),
    brandIds: asked.flatMap((record) => (record.brandId === undefined ? [] : [record.brandId])),
  });
}

/**
 * What a record takes from its input alone, checked: everything but what its lookups decide. The
 * checks run in the order the interface reports them, after those of the lookups (checkedRecord).
 */
export function inputColumns(input: RecordColumnsInput, place: GeoLocation | undefined, now: Date): InputColumns {
  // Every field is checked (validateAll), each problem under its GraphQL field, the first as the interface reports it.
  const checked = validateAll(
    {
      completedAt: () => {
        const completedAt = input.completedAt ?? now;
        if (Number.isNaN(completedAt.getTime()) || completedAt.getTime() > now.getTime() + maxFuture) {
          throw invalidParameter('timestamp', 'expected a time that is not in the future');
        }
        return completedAt;
      },
      content: () => {
        if (input.content !== undefined && (typeof input.content !== 'object' || input.content === null || Array.isArray(input.content))) {
          throw invalidParameter('content', 'expected a JSON object');
        }
        if (input.content && jsonDepthExceeds(input.content, maxContentDepth)) {
          throw invalidParameter('content', `expected a JSON object nested at most ${maxContentDepth} levels deep`);
        }
        return input.content ?? null;
      },
      value: () => {
        if (input.value !== undefined && input.value !== null && !Number.isFinite(input.value)) throw invalidParameter('value', 'expected a number');
        return input.value ?? null;
      },
      service: () => network(input.service, 'service') ?? null,
      marker: () => text(input.marker, 'marker', 200) ?? null,
      link: () => text(input.link, 'link', 2000) ?? null,
      media: () => text(input.media, 'media', 2000) ?? null,
      category: () => text(input.category, 'category', 200) ?? null,
    },
    (key) => [key],
  );
  // Every record gets the same properties in the same order (no spread): a batch's thousand rows
  // then share one shape, and the statement's per-column reads of them stay fast (driverValue).
  const geo = place ? geoColumns(place) : noPlace;
  return {
    service: checked.service,
    marker: checked.marker,
    link: checked.link,
    media: checked.media,
    category: checked.category,
    content: checked.content,
    value: checked.value,
    geoCountry: geo.geoCountry,
    geoCity: geo.geoCity,
    geoRegion: geo.geoRegion,
    geoLat: geo.geoLat,
    geoLong: geo.geoLong,
    completedAt: checked.completedAt,
  };
}

/** The geo columns of a record whose address places it nowhere. */
const noPlace = { geoCountry: null, geoCity: null, geoRegion: null, geoLat: null, geoLong: null };

/** What inputColumns reads of a record's input (RecordActivityInput, ActivityRecordInput). */
export type RecordColumnsInput = Pick<RecordActivityInput, 'completedAt' | 'content' | 'value' | 'service' | 'marker' | 'link' | 'media' | 'category'>;

/** A record's lookup that found nothing, as the interface reports it. */
function refusal(asked: AskedRecord, what: 'Activity' | 'Member' | 'Brand') {
  if (what === 'Activity') return notFound('Activity', 'activityId');
  if (what === 'Member') return notFound('Member', asked.input.member ? 'member' : asked.memberId !== undefined ? 'memberId' : 'partnerId');
  return notFound('Brand', 'brandId');
}

/** One record against its batch's lookups: the row to store, or the error that refuses it. */
function checkedRecord(scope: ActivityScope, asked: AskedRecord, found: q.RecordLookups, place: GeoLocation | undefined, now: Date): NewRecordRow {
  const definition = found.definitions.get(asked.activityId);
  if (!definition || definition.deleted) throw refusal(asked, 'Activity');
  const memberId = asked.memberId !== undefined ? found.members.get(asked.memberId) : found.partners.get(q.partnerKey(asked.partner!));
  if (memberId === undefined) throw refusal(asked, 'Member');
  if (asked.brandId !== undefined && !found.brands.has(asked.brandId)) throw refusal(asked, 'Brand');
  const columns = inputColumns(asked.input, place, now);
  // Written out rather than spread from `columns`, for one shape across the batch (see inputColumns).
  return {
    service: columns.service ?? definition.service,
    marker: columns.marker,
    link: columns.link,
    media: columns.media,
    category: columns.category,
    content: columns.content,
    value: columns.value,
    geoCountry: columns.geoCountry,
    geoCity: columns.geoCity,
    geoRegion: columns.geoRegion,
    geoLat: columns.geoLat,
    geoLong: columns.geoLong,
    completedAt: columns.completedAt,
    accountId: scope.accountId,
    memberId,
    activityId: definition.id,
    brandId: asked.brandId ?? definition.brandId,
    applicationId: scope.applicationId,
    points: definition.points,
    oneTime: definition.oneTime,
  };
}

/**
 * Checks a batch against the account and turns it into rows: definitions, members (by id or
 * partner reference) and brands are looked up once for the whole batch, in one statement. Any bad
 * record refuses the whole batch, before anything is written.
 */
export async function prepareRecords(scope: ActivityScope, given: readonly RecordActivityInput[], now = new Date()): Promise<NewRecordRow[]> {
  if (given.length > maxBatchSize) throw invalidParameter('input', `expected at most ${maxBatchSize} records per call`);
  const inputs = await withMemberRefs(scope, given);
  const asked = askedRecords(inputs);
  const [found, places] = await Promise.all([lookUp(scope, asked), Promise.all(inputs.map((input) => locate(input.ip)))]);
  return asked.map((record, index) => checkedRecord(scope, record, found, places[index], now));
}

/**
 * Records that name their member by `member` (a MemberRef), as the older fields: an id or a
 * partner reference goes to the batch's one lookup; an address or a network username is looked up
 * here, once per distinct value. `member` beside the older fields is refused.
 */
async function withMemberRefs(scope: ActivityScope, inputs: readonly RecordActivityInput[]): Promise<readonly RecordActivityInput[]> {
  if (!inputs.some((input) => input.member)) return inputs;
  const found = new Map<string, Promise<number>>();
  const memberOf = (ref: MemberRef) => {
    const key = JSON.stringify(lookupOfRef(ref));
    let id = found.get(key);
    if (!id) {
      id = lookupMember(scope.db, scope.accountId, lookupOfRef(ref)).then(
        (row) => row.id,
        (error: unknown) => {
          if (error instanceof AppError && error.extensions.code === 'NOT_FOUND') throw notFound('Member', 'member');
          if (error instanceof AppError && error.extensions.code === 'MISSING_PARAMETER') throw missingParameter('member', 'Name the member with a value: an empty one names nobody.');
          throw error;
        },
      );
      found.set(key, id);
    }
    return id;
  };
  return Promise.all(
    inputs.map(async (input) => {
      const ref = input.member;
      if (!ref) return input;
      if (input.memberId || input.partnerCode || input.partnerId) throw invalidParameter('member', 'give member, or memberId (or partnerCode and partnerId), not both');
      if (ref.id !== undefined && ref.id !== null) return { ...input, memberId: ref.id };
      if (ref.partner) return { ...input, partnerCode: ref.partner.code, partnerId: ref.partner.id };
      return { ...input, memberId: String(await memberOf(ref)) };
    }),
  );
}

function partnerRef(input: RecordActivityInput) {
  const code = input.partnerCode?.trim();
  const id = input.partnerId?.trim();
  if (!code && !id) throw missingParameter('memberId', "The member is required: send 'id', or 'partnerCode' and 'partnerID'.");
  if (!code) throw missingParameter('partnerCode');
  if (!id) throw missingParameter('partnerId');
  return { code, id };
}

export interface RecordOutcome {
  record: RecordRow;
  created: boolean;
}

/**
 * Records one activity; a repeat (same marker, or a one-time activity again) returns the stored
 * record. Answered once the record is committed. Single records that arrive while others are being
 * stored are stored together (see RecordWriter), each with its own answer.
 */
export async function recordActivity(scope: ActivityScope, given: RecordActivityInput): Promise<RecordOutcome> {
  const now = new Date();
  const [input] = await withMemberRefs(scope, [given]);
  const [asked] = askedRecords([input]);
  const place = await locate(input.ip);
  return writerFor(scope.db).record(scope, asked, place, now);
}

/**
 * How often records are resolved and stored again when a member they name was merged meanwhile
 * (memberMergedMeanwhile): once more is the rule; a member merged again in between is rare.
 */
const resolveAttempts = 3;

/** Records up to 1000 activities in one transaction; repeats are counted, not stored. */
export async function recordActivities(scope: ActivityScope, inputs: readonly RecordActivityInput[]) {
  const now = new Date();
  // A member merged since the lookup: the statement stored nothing, and the lookup now names the survivor.
  const { rows, inserted } = await retryTransaction(
    async () => {
      const rows = await prepareRecords(scope, inputs, now);
      return { rows, inserted: await storeRecords(scope.db, rows, now) };
    },
    { attempts: resolveAttempts, retryable: memberMergedMeanwhile },
  );
  publishRecorded(scope.db, scope.accountId, inserted);
  return { created: inserted.length, repeated: rows.length - inserted.length, recordIds: inserted.map((row) => row.id) };
}

/**
 * Records dated at most this long before their batch is stored are stored in one statement
 * (insertRecordsAlone). The kept windows' claim ends a few seconds to half a minute before now
 * (the kept-data worker's lag and pass), so older records may lie before it: they go straight to
 * a transaction rather than fail that statement first.
 */
const recentMs = 30_000;

/**
 * Stores a batch in one statement when its repeatable records are recent, as records of now are
 * (and `alone` is not false: the caller already knows that a record lies before the claim);
 * otherwise, or when that statement finds a record before the kept windows' claim after all, in a
 * transaction that counts such records into the kept totals (insertRecords).
 */
function storeRecords(db: Executor, rows: NewRecordRow[], now: Date, options: { full: true; alone?: boolean }): Promise<RecordRow[]>;
function storeRecords(db: Executor, rows: NewRecordRow[], now: Date): Promise<q.StoredRecord[]>;
async function storeRecords(db: Executor, rows: NewRecordRow[], now: Date, { full = false, alone = true } = {}): Promise<q.StoredRecord[]> {
  const recent = rows.every((row) => row.oneTime || row.completedAt.getTime() >= now.getTime() - recentMs);
  // A deadlock victim (records of several members against a merge or a deletion of two of them) stored nothing: it runs again.
  if (recent && alone) {
    try {
      return await retryTransaction(() => q.insertRecordsAlone(db, rows, { full }));
    } catch (error) {
      if (!q.beforeWindowsClaim(error)) throw error;
    }
  }
  return retryTransaction(() => db.transaction((tx) => q.insertRecords(tx, rows, { full })));
}

/** What tells a stored record from its input, and whether a record may be a repeat. */
type RecordKey = Pick<NewRecordRow, 'accountId' | 'memberId' | 'activityId' | 'marker' | 'oneTime'> & { completedAt: Date };

/** Whether a record may be skipped as a repeat: it has a marker, or its activity is one-time. */
const mayRepeat = (row: RecordKey) => row.marker !== null || row.oneTime === true;

/**
 * Which of `rows` were inserted: `inserted` holds the stored ones in input order (insertRecords).
 * A record that cannot repeat is always stored; one that can is stored when the next stored record
 * is it (a later record with the same marker or one-time key is never stored when an earlier one
 * was skipped, nor after an earlier one was stored).
 */
function matchInserted(rows: readonly RecordKey[], inserted: readonly RecordRow[]): (RecordRow | undefined)[] {
  let next = 0;
  return rows.map((row) => {
    const candidate = inserted[next];
    const same =
      candidate !== undefined &&
      candidate.memberId === row.memberId &&
      candidate.activityId === row.activityId &&
      candidate.marker === row.marker &&
      candidate.completedAt.getTime() === row.completedAt.getTime();
    if (!same) {
      if (!mayRepeat(row)) throw new AppError('INTERNAL', 'A stored record does not match its input.');
      return undefined;
    }
    next += 1;
    return candidate;
  });
}

interface PendingRecord {
  scope: ActivityScope;
  asked: AskedRecord;
  place: GeoLocation | undefined;
  now: Date;
  /** The statements of the caller's request, which is charged its share of the shared ones. */
  roundTrips: RoundTripCounter | undefined;
  resolve: (outcome: RecordOutcome) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; outcome: RecordOutcome } | { ok: false; error: unknown };
/** A record whose own columns failed their checks, and why. */
type Refused = { refused: unknown };
const ok = (outcome: RecordOutcome): Settled => ({ ok: true, outcome });
const failed = (error: unknown): Settled => ({ ok: false, error });

/**
 * Group commit for single records (REST `activity/record`, GraphQL `recordActivity`). One write at
 * a time per gateway; the records that arrive meanwhile are stored together by the next one: for
 * records of now, one statement that looks them up, stores those that pass with their rollup, and
 * commits (insertCheckedRecords). Each caller still gets its own answer, after the commit: a record
 * that fails its checks is refused alone, and if the shared statement fails, the records take two
 * steps in which each is tried again on its own, so one record's bad data never fails another's
 * request. When traffic is light a record is written at once, alone. (Two writes at a time made
 * smaller groups and cost the gateway more per record, see docs/performance.md.) On a Citus
 * coordinator the group's statement is a transaction of plain statements instead
 * (insertCheckedRecordsInSteps, `steps`): the one statement's inserts in CTEs are not routed there.
 */
class RecordWriter {
  private pending: PendingRecord[] = [];
  private writing = false;

  constructor(
    private readonly db: Executor,
    private readonly form: RecordGroupForm,
  ) {}

  record(scope: ActivityScope, asked: AskedRecord, place: GeoLocation | undefined, now: Date): Promise<RecordOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ scope, asked, place, now, roundTrips: currentRoundTripCounter(), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.writing || !this.pending.length) return;
    const taken = this.pending.splice(0, maxBatchSize);
    this.writing = true;
    void this.write(taken).finally(() => {
      this.writing = false;
      this.pump();
    });
  }

  /** Writes records per account and application (a transaction's rows share them), then answers each. */
  private async write(taken: PendingRecord[]): Promise<void> {
    const groups = new Map<string, PendingRecord[]>();
    for (const record of taken) {
      const key = `${record.scope.accountId}:${record.scope.applicationId}`;
      const group = groups.get(key);
      if (group) group.push(record);
      else groups.set(key, [record]);
    }
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const { result, roundTrips } = await withRoundTripCount(() => this.settle(group).catch((error: unknown) => group.map(() => failed(error))));
        group.forEach((record, index) => {
          if (record.roundTrips) record.roundTrips.count += roundTrips / group.length;
          const settled = result[index];
          if (settled.ok) record.resolve(settled.outcome);
          else record.reject(settled.error);
        });
      }),
    );
  }

  /**
   * Each record's outcome or error, in the group's order. Records of now are looked up and stored
   * in one statement (insertCheckedRecords). A group with an older record takes two, a lookup and
   * then a store (settleInTwoSteps), and so does a group whose one statement failed: it is its own
   * transaction, so it stored nothing, and the two steps then tell which record's data failed it,
   * or count records before the kept windows' claim in a transaction. Rejects when the database is
   * gone or a lookup fails (the whole group then fails with it).
   */
  private async settle(group: PendingRecord[]): Promise<Settled[]> {
    const own = group.map(({ asked, place, now }): InputColumns | Refused => {
      try {
        return inputColumns(asked.input, place, now);
      } catch (error) {
        return { refused: error };
      }
    });
    const since = Date.now() - recentMs;
    if (own.some((columns) => 'completedAt' in columns && columns.completedAt.getTime() < since)) return this.settleInTwoSteps(group, { alone: true });
    const { accountId, applicationId } = group[0].scope;
    let checked: Awaited<ReturnType<typeof insertCheckedRecords>>;
    try {
      const asked = group.map(({ asked: { activityId, memberId, partner, brandId } }, index) => {
        const columns = own[index];
        return { activityId, memberId, partner, brandId, columns: 'refused' in columns ? undefined : columns };
      });
      checked = await (this.form === 'steps' ? insertCheckedRecordsInSteps : insertCheckedRecords)(this.db, accountId, applicationId, asked);
    } catch (error) {
      if (databaseUnavailable(error)) throw error;
      return this.settleInTwoSteps(group, { alone: !q.beforeWindowsClaim(error) });
    }
    const settled: Settled[] = [];
    const accepted: { index: number; row: RecordKey }[] = [];
    group.forEach(({ asked }, index) => {
      const { refused, memberId, oneTime } = checked.verdicts[index];
      const columns = own[index];
      if (refused) settled[index] = failed(refusal(asked, refused));
      else if ('refused' in columns) settled[index] = failed(columns.refused);
      else accepted.push({ index, row: { accountId, memberId: memberId!, activityId: asked.activityId, marker: columns.marker, oneTime: oneTime!, completedAt: columns.completedAt } });
    });
    await this.answerStored(accepted, checked.inserted, settled);
    return settled;
  }

  /**
   * settle in two steps: one lookup statement, then the records that pass are stored (storeRecords;
   * in a transaction at once unless `alone`). If storing fails, each record is tried on its own.
   */
  private async settleInTwoSteps(group: PendingRecord[], { alone }: { alone: boolean }, attempt = 1): Promise<Settled[]> {
    const scope = { ...group[0].scope, db: this.db };
    const found = await lookUp(
      scope,
      group.map((record) => record.asked),
    );
    const settled: Settled[] = [];
    const accepted: { index: number; row: NewRecordRow }[] = [];
    group.forEach((record, index) => {
      try {
        accepted.push({ index, row: checkedRecord(scope, record.asked, found, record.place, record.now) });
      } catch (error) {
        settled[index] = failed(error);
      }
    });
    if (!accepted.length) return settled;
    const rows = accepted.map((entry) => entry.row);
    let inserted: RecordRow[];
    try {
      inserted = await storeRecords(this.db, rows, new Date(), { full: true, alone });
    } catch (error) {
      // A member merged since the lookup: nothing was stored, and a new lookup names the survivor.
      if (memberMergedMeanwhile(error) && attempt < resolveAttempts) return this.settleInTwoSteps(group, { alone }, attempt + 1);
      if (accepted.length === 1 || databaseUnavailable(error)) {
        for (const { index } of accepted) settled[index] = failed(error);
      } else {
        // Whatever failed the shared transaction belongs to one record (bad data, say): each on its own.
        await Promise.all(accepted.map(async ({ index, row }) => (settled[index] = await this.writeOne(row).then(ok, failed))));
      }
      return settled;
    }
    await this.answerStored(accepted, inserted, settled);
    return settled;
  }

  /** Answers the accepted records of a stored group: each its stored record, or a repeat the one stored earlier. */
  private async answerStored(accepted: { index: number; row: RecordKey }[], inserted: RecordRow[], settled: Settled[]): Promise<void> {
    if (!accepted.length) return;
    publishRecorded(this.db, accepted[0].row.accountId, inserted);
    const stored = matchInserted(
      accepted.map((entry) => entry.row),
      inserted,
    );
    await Promise.all(accepted.map(async ({ index, row }, at) => (settled[index] = await this.outcome(row, stored[at]).then(ok, failed))));
  }

  private async writeOne(row: NewRecordRow): Promise<RecordOutcome> {
    const [inserted] = await storeRecords(this.db, [row], new Date(), { full: true });
    if (inserted) publishRecorded(this.db, row.accountId, [inserted]);
    return this.outcome(row, inserted);
  }

  /** A stored record, or for a repeat the record stored earlier. */
  private async outcome(row: RecordKey, inserted: RecordRow | undefined): Promise<RecordOutcome> {
    if (inserted) return { record: inserted, created: true };
    const existing = await q.findExistingRecord(this.db, row);
    if (!existing) throw new AppError('INTERNAL', 'The record was neither stored nor found.');
    return { record: existing, created: false };
  }
}

/**
 * How a group of single records of now is stored: `statement`, one statement that is its own
 * transaction (PostgreSQL, PGlite: one round trip), or `steps`, a transaction of plain statements
 * (a Citus coordinator: each routed to the account's shard; docs/scaling.md).
 */
export type RecordGroupForm = 'statement' | 'steps';

const writers = new WeakMap<Executor, RecordWriter>();
const groupForms = new WeakMap<Executor, RecordGroupForm>();

/**
 * Sets the form in which the writer of `db` stores its groups from now on: the gateway sets
 * `steps` at start on a Citus coordinator (http/server.ts); tests set either on any database, so
 * both forms are checked on every engine.
 */
export function storeRecordGroupsAs(db: Executor, form: RecordGroupForm): void {
  groupForms.set(db, form);
  writers.delete(db);
}

function writerFor(db: Executor): RecordWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new RecordWriter(db, groupForms.get(db) ?? 'statement')));
  return writer;
}

/** Deletes one record (`recordId`) or all records of an activity of a member; scores follow at once. */
export async function deleteMemberActivity(scope: ActivityScope, memberId: number, which: { recordId?: number; activityId?: number }) {
  if (!which.recordId && !which.activityId) throw missingParameter('recordId', 'Send the record to delete, or the activity whose records to delete.');
  const resolved = (await q.resolveMemberIds(scope.db, scope.accountId, [memberId])).get(memberId);
  if (resolved === undefined) throw notFound('Member', 'memberId');
  const deleted = await scope.db.transaction((tx) => q.deleteRecords(tx, scope.accountId, resolved, which));
  if (which.recordId && !deleted.length) throw notFound('Record', 'recordId');
  return deleted.length;
}
