import fs from 'node:fs';
import path from 'node:path';
import type { StatementLine } from '../../src/db/statement-log.js';
import { allowedStatements, type AllowedStatement } from './allowlist.js';
import { checkStatement, insertsPulledThroughCoordinator, loadStatementParser, modifyingCtes, type Violation } from './statement-checker.js';
import { tenancyTablesFromSchema } from './tenant-tables.js';

/**
 * `npm run check:tenancy [directory…]`: reads the statements recorded under MARQUEE_STATEMENT_LOG
 * (the directories given, or that variable's) and fails if any touches a tenant table without
 * holding it to one account, naming each statement, where it came from and the reference at fault;
 * and if any has a shape Citus refuses on distributed tables (docs/scaling.md, "Statements on a
 * cluster"): a volatile function in an UPDATE, a subquery in an INSERT's values, a FOR UPDATE
 * reaching several accounts (no allowlist entry excuses a statement that locks rows). And the
 * statements that keep the kept data from the kept-data worker (`keptDataWriters`) must be
 * routable statements of one account: an INSERT in a CTE there is planned through the
 * coordinator, as distributed subplans, on every fold step, and an INSERT … SELECT whose
 * `account_id` is a parameter, a constant or a data-modifying CTE's is pulled through it.
 * A test's own statements (setting up or inspecting rows) are left out.
 */

/**
 * The files that build the kept data's statements: the fold of the score windows, their groups
 * and activity totals, the timeline's kept days and the brand members the worker settles (and the
 * workers themselves). The statements that store records write their kept data in CTEs of one
 * statement on plain PostgreSQL, by design (activities.queries.ts); they are not these.
 */
const keptDataWriters = [
  'src/modules/score-windows/',
  'src/modules/scoring/score-windows.worker.ts',
  'src/modules/scoring/timeline-days.queries.ts',
  'src/modules/brands/brand-members.queries.ts',
  'src/modules/lifecycle/kept-data.worker.ts',
];

function fromKeptDataWriter(from: string | undefined): boolean {
  return Boolean(from && keptDataWriters.some((prefix) => from.startsWith(prefix)));
}

const directories = process.argv.slice(2).length ? process.argv.slice(2) : [process.env.MARQUEE_STATEMENT_LOG ?? ''];
if (!directories[0]) {
  console.error('usage: npm run check:tenancy <directory…> (or set MARQUEE_STATEMENT_LOG)');
  process.exit(2);
}

const statements = readStatements(directories);
const tables = tenancyTablesFromSchema();
await loadStatementParser();

const started = performance.now();
const used = new Set<AllowedStatement>();
let failures = 0;
let fromTests = 0;
for (const [text, from] of statements) {
  if (from?.startsWith('test/')) {
    fromTests++;
    continue;
  }
  let violations: Violation[];
  try {
    violations = checkStatement(text, tables);
  } catch (error) {
    failures++;
    console.log(`\n✗ not parsed (${(error as Error).message})${from ? `, from ${from}` : ''}:\n  ${oneLine(text)}`);
    continue;
  }
  // A lock across accounts is what Citus refuses ("could not run distributed query with FOR
  // UPDATE/SHARE commands"): no allowlist entry excuses a statement that locks rows.
  const allowed = locksRows(text) ? [] : allowedStatements.filter((entry) => oneLine(text).includes(entry.contains));
  const remaining = violations.filter((violation) => {
    const entry = allowed.find((candidate) => candidate.tables.includes(violation.table));
    if (entry) used.add(entry);
    return !entry;
  });
  // Citus: "only SELECT, UPDATE, or DELETE common table expressions may be router planned".
  const keptData = fromKeptDataWriter(from);
  const routedThroughCoordinator = keptData ? modifyingCtes(text).filter((cte) => cte.startsWith('INSERT')) : [];
  // Citus: an INSERT … SELECT whose account_id is not a table's column goes "pull to coordinator".
  const pulled = keptData ? insertsPulledThroughCoordinator(text) : [];
  if (!remaining.length && !routedThroughCoordinator.length && !pulled.length) continue;
  failures++;
  console.log(`\n✗ ${from ? `from ${from}` : 'from an unknown caller'}:\n  ${oneLine(text)}`);
  for (const violation of remaining) console.log(`  - ${violation.table} as ${violation.reference}: ${violation.problem}`);
  for (const cte of routedThroughCoordinator) console.log(`  - an INSERT in a CTE (${cte}) in a kept-data statement, which Citus plans through the coordinator: send it as a statement of its own`);
  for (const insert of pulled)
    console.log(`  - ${insert} in a kept-data statement, which Citus pulls through the coordinator: select account_id from a table held to the account (kept-data/account-rows.ts)`);
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`\n${statements.size} distinct statements (${fromTests} of tests' own, left out) checked in ${seconds} s against ${tables.tenant.size} tenant tables; ${failures} failed.`);
for (const entry of allowedStatements) {
  if (!used.has(entry)) console.log(`allowlist entry matched nothing in this record: "${entry.contains}"`);
}
process.exit(failures ? 1 : 0);

/** Every recorded statement once, with the first caller seen for it. */
function readStatements(roots: string[]): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (const root of roots) {
    const files = fs.statSync(root).isDirectory()
      ? fs
          .readdirSync(root)
          .filter((name) => name.endsWith('.jsonl'))
          .map((name) => path.join(root, name))
      : [root];
    for (const file of files) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        const { sql, from } = JSON.parse(line) as StatementLine;
        if (!found.has(sql) || (found.get(sql)?.startsWith('test/') && !from?.startsWith('test/'))) found.set(sql, from);
      }
    }
  }
  return found;
}

function locksRows(text: string): boolean {
  return /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i.test(text);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
