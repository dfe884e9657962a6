import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidParameter } from '../../core/errors.js';
import { exportFan } from '../../modules/fans/fan-actions.js';
import { csvOf, exportRows, exportTotal, filterSource, recordExport, segmentSource, type ExportSource } from '../../modules/fans/fan-export.js';
import { fanId } from '../../modules/fans/fan-page.js';
import type { Permission } from '../../modules/staff/permissions.js';
import { memberFilterOf, windowOf } from '../../rest/filter-params.js';
import { Params } from '../../rest/params.js';
import { consoleAuditOrigin, requireStaff, type ConsoleRoutes } from '../route-kit.js';
import type { StaffCaller } from '../context.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import type { WindowInput } from '../../filters/window.types.js';

/**
 * The console's downloads (console/routes.ts: inside the console's plugin, with its session cookie):
 * - `GET /console/segments/:id/export.csv` (segments.export): a segment's fans;
 * - `GET /console/fans/export.csv?<filter>` (segments.export): the fans a member filter keeps, with
 *   the /v1.1 filter parameters (brandid, country, paid_only, members_from_segment, …);
 * - `GET /console/fans/:id/export.json` (fans.export): everything stored about one fan.
 * A CSV is streamed in batches of 5,000 fans read as the client takes them, after `x-total-rows`
 * (counted first) so the console can show progress; it stops reading when the client goes away.
 * Each is recorded in the audit log (segment.export, fan.export), as reading a fan's data is.
 */
export const fanExportRoutes: ConsoleRoutes = (app, deps) => {
  const db = deps.database.db;
  const staffWith = (request: FastifyRequest, permission: Permission) => requireStaff(request, deps.database, permission);
  const originOf = (request: FastifyRequest, caller: StaffCaller) => consoleAuditOrigin(request, caller);

  const sendCsv = async (request: FastifyRequest, reply: FastifyReply, caller: StaffCaller, source: ExportSource, filename: string, audit: { segmentId?: number; filter?: MemberFilter }) => {
    const total = await exportTotal(db, source);
    await recordExport(db, caller.accountId, originOf(request, caller), { ...audit, rows: total });
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
    return sendCsv(request, reply, caller, source, `segment-${segmentId}.csv`, { segmentId });
  });

  app.get('/console/fans/export.csv', { config: { kind: 'rest' } }, async (request, reply) => {
    const caller = await staffWith(request, 'segments.export');
    const params = Params.fromRequest(request);
    // The REST parameters as the filter compiler takes them (rest/filter-params.ts reads them for
    // GraphQL variables, whose ids are strings already): only the fields given (a flag left out reads as false).
    const filter = Object.fromEntries(Object.entries(memberFilterOf(params)).filter(([, value]) => value !== undefined && value !== null && value !== false)) as MemberFilter;
    const source = await filterSource(db, caller.accountId, filter, windowOf(params) as WindowInput);
    return sendCsv(request, reply, caller, source, 'fans.csv', { filter });
  });

  app.get('/console/fans/:id/export.json', { config: { kind: 'rest' } }, async (request, reply) => {
    const caller = await staffWith(request, 'fans.export');
    const raw = (request.params as { id: string }).id;
    if (!/^\d{1,10}$/.test(raw)) throw invalidParameter('id', 'expected a fan id');
    const document = await exportFan({ db, accountId: caller.accountId, identity: deps.identity, origin: originOf(request, caller) }, fanId(raw));
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="fan-${document.memberId}.json"`)
      .send(JSON.stringify(document, null, 2));
  });
};
