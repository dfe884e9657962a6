import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import type { PresaveItems } from '../../db/schema/index.js';
import { outsideRequest } from '../../db/roundtrips.js';
import { AppError, invalidParameter, missingParameter, notFound } from '../../core/errors.js';
import type { TokenCipher } from '../identity/token-cipher.js';
import { parseMusicItem } from '../brands/brand-urls.js';
import { NetworkError, type NetworkAdapter } from '../networks/adapter.js';
import { displayName, type Network } from '../networks/networks.js';
import * as q from './presave.queries.js';
import type { PresaveJobRow } from './presave.queries.js';
import { LibraryItemKind, PresaveResultStatus, PresaveStatus, type PresaveInput, type PresaveJob } from './presave.types.js';
import { requireListSegment } from './segments.service.js';

/** What a run needs: the database, the sealed tokens' cipher, the network adapters, a logger. */
export interface PresaveRunner {
  db: Database;
  cipher: TokenCipher;
  networks: Map<Network, NetworkAdapter>;
  log: FastifyBaseLogger;
}

export interface PresaveScope {
  db: Database;
  accountId: number;
  applicationId: number;
}

/** A run that has not finished after this long is taken to have stopped with its gateway. */
const staleRunMs = 15 * 60_000;

const musicNetworks = ['spotify', 'deezer'] as const;

/** The items of a presave, from `spotify` and `deezer` (URL, URI or id); at least one. */
function readItems(input: PresaveInput): PresaveItems {
  const items: PresaveItems = {};
  for (const network of musicNetworks) {
    const value = input[network]?.trim();
    if (!value) continue;
    const item = parseMusicItem(network, value, input.kind ?? LibraryItemKind.TRACK);
    if (!item) throw invalidParameter(network, `expected a ${displayName(network)} track or album: its URL, URI or id`);
    items[network] = item;
  }
  if (!Object.keys(items).length) throw missingParameter('spotify', 'Name the track or album: spotify, deezer, or both.');
  return items;
}

export async function createPresave(scope: PresaveScope, segmentId: number, input: PresaveInput): Promise<PresaveJobRow> {
  const items = readItems(input);
  await requireListSegment(scope.db, scope.accountId, segmentId, 'segmentId');
  return q.insertJob(scope.db, { accountId: scope.accountId, segmentId, applicationId: scope.applicationId, items });
}

export async function requireJob(db: Database, accountId: number, segmentId: number, jobId: number): Promise<PresaveJobRow> {
  const job = await q.findJob(db, accountId, jobId);
  if (!job || job.segmentId !== segmentId) throw notFound('Presave job', 'id');
  return job;
}

/**
 * Queues the job for another run: failed members are tried again, saved and skipped ones are kept.
 * Queued at once, so a reader polling for `done` waits for the new run.
 */
export async function requeue(db: Database, job: PresaveJobRow): Promise<PresaveJobRow> {
  const queued = await q.requeueJob(db, job.accountId, job.id, staleRunMs);
  if (!queued) throw new AppError('CONFLICT', 'The job is running; retry it once it is done.', 'id');
  return queued;
}

/** Runs the job outside the current request, with its own database work; the request reads its answer first. */
export function runInBackground(runner: PresaveRunner, accountId: number, jobId: number): void {
  setImmediate(() => {
    outsideRequest(() => runPresave(runner, accountId, jobId)).catch((error: unknown) => runner.log.error({ err: error, jobId }, 'presave job failed'));
  });
}

/**
 * One run: every member currently opted into the segment, on each of their valid Spotify and
 * Deezer links the job has an item for. A save is claimed before the network is called, and a
 * member who saved the item in an earlier job is skipped, so nobody gets the same save twice.
 */
export async function runPresave(runner: PresaveRunner, accountId: number, jobId: number): Promise<void> {
  const job = await q.claimJob(runner.db, accountId, jobId, staleRunMs);
  if (!job) return;
  const networks = musicNetworks.filter((network) => job.items[network]);
  const memberIds = await q.optedInMembers(runner.db, accountId, job.segmentId);
  const services = await q.musicServicesOf(runner.db, accountId, memberIds, networks);
  for (const memberId of memberIds) {
    const linked = services.filter((service) => service.memberId === memberId);
    if (!linked.length) {
      const names = networks.map((network) => displayName(network)).join(' or ');
      await q.recordOnce(runner.db, { accountId, jobId, memberId, network: null, status: 'skipped', reason: `no valid ${names} link` });
      continue;
    }
    for (const service of linked) await saveFor(runner, job, service);
  }
  await q.finishJob(runner.db, accountId, jobId);
}

async function saveFor(runner: PresaveRunner, job: PresaveJobRow, service: Awaited<ReturnType<typeof q.musicServicesOf>>[number]) {
  const network = service.network as (typeof musicNetworks)[number];
  const item = job.items[network]!;
  const key = `${network}:${item.kind}:${item.id}`;
  const result = { accountId: job.accountId, jobId: job.id, memberId: service.memberId, network };
  if (!(await q.claimSave(runner.db, { ...result, item: key }))) return;
  const earlier = await q.savedBefore(runner.db, { accountId: job.accountId, memberId: service.memberId, item: key, exceptJobId: job.id });
  if (earlier) return q.settle(runner.db, { ...result, status: 'skipped', reason: `already saved by presave job ${earlier}` });
  const adapter = runner.networks.get(network);
  if (!adapter?.saveToLibrary) return q.settle(runner.db, { ...result, status: 'failed', reason: `${displayName(network)} cannot save to libraries` });
  try {
    await adapter.saveToLibrary(
      {
        token: runner.cipher.open(service.tokenSealed!),
        secret: service.tokenSecretSealed ? runner.cipher.open(service.tokenSecretSealed) : undefined,
        uid: service.uid,
      },
      item,
    );
    await q.settle(runner.db, { ...result, status: 'saved', reason: null });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    const reason = error.reason === 'invalid_credentials' ? `${displayName(network)} refused the stored token; the member must sign in with ${displayName(network)} again` : error.message;
    await q.settle(runner.db, { ...result, status: 'failed', reason });
  }
}

const resultStatuses = { pending: PresaveResultStatus.PENDING, saved: PresaveResultStatus.SAVED, skipped: PresaveResultStatus.SKIPPED, failed: PresaveResultStatus.FAILED };
const jobStatuses = { queued: PresaveStatus.QUEUED, running: PresaveStatus.RUNNING, done: PresaveStatus.DONE };

export async function readJob(db: Database, job: PresaveJobRow): Promise<PresaveJob> {
  const results = await q.resultsOf(db, job.accountId, job.id);
  const counts = { saved: 0, skipped: 0, failed: 0, pending: 0 };
  for (const result of results) counts[result.status] += 1;
  return {
    id: job.id,
    segmentId: job.segmentId,
    status: jobStatuses[job.status],
    items: musicNetworks.flatMap((network) => {
      const item = job.items[network];
      return item ? [{ network, kind: item.kind as LibraryItemKind, id: item.id }] : [];
    }),
    runs: job.runs,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    counts,
    results: results.map((result) => ({ memberId: result.memberId, network: result.network, status: resultStatuses[result.status], reason: result.reason })),
  };
}
