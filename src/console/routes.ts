import { fanExportRoutes } from './fans/exports.http.js';
import type { ConsoleRoutes } from './route-kit.js';

/**
 * The console's plain routes beyond signing in (console.http.ts): exports and downloads, one line
 * per module, each a `ConsoleRoutes` (console/route-kit.ts) that checks its staff member with
 * `requireStaff(request, database, '<permission>')`.
 */
export const consoleRoutes: ConsoleRoutes[] = [fanExportRoutes];
