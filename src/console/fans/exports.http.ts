import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidParameter } from '../../core/errors.js';
import type { DatabaseHandle } from '../../db/client.js';
import { recordAudit } from '../../modules/audit/audit.js';
import { exportFan } from '../../modules/fans/fan-actions.js';
import { csvOf, exportRows, exportTotal, filterSource, recordExport, segmentSource, type ExportSource } from '../../modules/fans/fan-export.js';
import { fanId } from '../../modules/fans/fan-page.js';
import type { IdentityServices } from '../../modules/members/identity-services.js';
import { roleAllows, type Permission } from '../../modules/staff/permissions.js';
import { memberFilterOf, windowOf } from '../../rest/filter-params.js';
import { Params } from '../../rest/params.js';
import type { AuditOrigin } from '../../modules/audit/audit.actions.js';
import { forbidden, signInRequired } from '../auth.js';
import type { StaffCaller } from '../context.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import type { WindowInput } from '../../filters/window.types.js';

export interface ExportRouteDependencies {
  database: DatabaseHandle;
  identity: IdentityServices;
  /** The signed-in staff member of the request, when its session is live. */
  callerOf(request: FastifyRequest): StaffCaller | undefined;
  /** The audit origin of the request (the staff member, address, request id). */
  originOf(request: FastifyRequest, caller: StaffCaller): AuditOrigin;
}

/**
 * The console's downloads, inside the console's plugin (its session cookie and the x-console-csrf
 * header every console request carries, console/csrf.ts):
 * - `GET /console/segments/:id/export.csv` (segments.export): a segment's fans;
 * - `GET /console/fans/export.csv?<filter>` (segments.export): the fans a member filter keeps, with
 *   the /v1.1 filter parameters (brandid, country, paid_only, members_from_segment, …);
 * - `GET /console/fans/:id/export.json` (fans.export): everything stored about one fan.
 * A CSV is streamed in batches of 5,000 fans read as the client takes them, after `x-total-rows`
 * (counted first) so the console can show progress; it stops reading when the client goes away.
 */
export function registerFanExports(app: FastifyInstance, deps: ExportRouteDependencies): void {
  const db = deps.database.db;

  const staffWith = async (request: FastifyRequest, permission: Permission): Promise<StaffCaller> => {
    const caller = deps.callerOf(request);
    if (!caller || caller.owesSecondFactor) throw signInRequired();
    if (!roleAllows(caller.role, permission)) {
      // As the GraphQL operations: the refusal is an entry of its own, and nothing else ran.
      await recordAudit(db, caller.accountId, deps.originOf(request, caller), {
        action: 'permission.denied',
        target: { type: 'staff', id: String(caller.staffId) },
        outcome: 'denied',
        details: { permission, field: `GET ${request.routeOptions.url}`, role: caller.role },
      });
      throw forbidden(caller, permission);
    }
    return caller;
  };

  const sendCsv = async (request: FastifyRequest, reply: FastifyReply, source: ExportSource, filename: string, audit: { segmentId?: number; filter?: MemberFilter }) => {
    const caller = await staffWith(request, 'segments.export');
    const total = await exportTotal(db, source);
    await recordExport(db, caller.accountId, deps.originOf(request, caller), { ...audit, rows: total });
    let rows = 0;
    let batches = 0;
    const started = Date.now();
    const csv = csvOf(
      exportRows(db, source, {
        onBatch: (count) => {
          batches += 1;
          rows += count;
        },
      }),
      (error) => request.log.info({ rows, batches, total, complete: !error && rows === total, ms: Date.now() - started, err: error ?? undefined }, 'csv export ended'),
    );
    // The client went away before the end: the stream is destroyed, which closes the batches' generator.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) csv.destroy();
    });
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).header('x-total-rows', String(total)).send(csv);
  };

  app.get('/console/segments/:id/export.csv', { config: { kind: 'rest' } }, async (request, reply) => {
    const caller = await staffWith(request, 'segments.export');
    const segmentId = fanId((request.params as { id: string }).id, 'id');
    const source = await segmentSource(db, caller.accountId, segmentId);
    return sendCsv(request, reply, source, `segment-${segmentId}.csv`, { segmentId });
  });

  app.get('/console/fans/export.csv', { config: { kind: 'rest' } }, async (request, reply) => {
    const caller = await staffWith(request, 'segments.export');
    const params = Params.fromRequest(request);
    // The REST parameters as the filter compiler takes them (rest/filter-params.ts reads them for
    // GraphQL variables, whose ids are strings already): only the fields given (a flag left out reads as false).
    const filter = Object.fromEntries(Object.entries(memberFilterOf(params)).filter(([, value]) => value !== undefined && value !== null && value !== false)) as MemberFilter;
    const source = await filterSource(db, caller.accountId, filter, windowOf(params) as WindowInput);
    return sendCsv(request, reply, source, 'fans.csv', { filter });
  });

  app.get('/console/fans/:id/export.json', { config: { kind: 'rest' } }, async (request, reply) => {
    const caller = await staffWith(request, 'fans.export');
    const raw = (request.params as { id: string }).id;
    if (!/^\d{1,10}$/.test(raw)) throw invalidParameter('id', 'expected a fan id');
    const document = await exportFan({ db, accountId: caller.accountId, identity: deps.identity, origin: deps.originOf(request, caller) }, fanId(raw));
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="fan-${document.memberId}.json"`)
      .send(JSON.stringify(document, null, 2));
  });
}
