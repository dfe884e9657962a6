import { loadModule, parseSync } from 'libpg-query';
import type { TenancyTables } from './tenant-tables.js';

/**
 * Proves that a statement reads or changes the rows of one account only: every reference to a
 * tenant table (one with `account_id`) in a SELECT, UPDATE, DELETE or INSERT … SELECT, at any depth
 * (CTEs, subqueries, lateral joins, EXISTS), must be held by an equality on its `account_id`, in
 * the WHERE of its own query level or in a JOIN's ON or USING:
 *
 *   alias.account_id = $1 | constant | an outer query's column | another held reference's account_id
 *
 * Held by an outer query's column only, a reference in a subquery is of one account, but Citus
 * plans such a subquery on every shard of the table (a select-list subquery, a LATERAL join, an
 * IN): it is reported as a cluster problem, to be held by the statement's value instead. EXISTS
 * among the conditions that must all hold is the exception: PostgreSQL turns it into a join, which
 * Citus routes to the account's shard (not under OR, where it stays a subquery per row).
 *
 * References to `accounts` are held by their `id` the same way. An equality only counts when it
 * must hold (a conjunct: not under OR or NOT), and an outer join's ON clause only holds the side it
 * may leave empty. INSERT … VALUES must give `account_id` a parameter or a constant in each row.
 * An append-only table (the audit log) is only ever inserted into: an UPDATE, DELETE, TRUNCATE or
 * upsert of it is a violation whatever its conditions.
 * Statements are parsed by PostgreSQL's own parser (libpg-query, compiled to WebAssembly).
 */
export interface Violation {
  /** The table that is not held to one account. */
  table: string;
  /** The name the statement gives that reference (its alias, or the table's name). */
  reference: string;
  problem: string;
}

export async function loadStatementParser(): Promise<void> {
  await loadModule();
}

/** The violations of one statement text (several statements separated by `;` are each checked). */
export function checkStatement(text: string, tables: TenancyTables): Violation[] {
  const parsed = parseSync(text) as { stmts?: { stmt: AstNode }[] };
  const checker = new StatementChecker(tables);
  for (const { stmt } of parsed.stmts ?? []) {
    checker.checkAny(stmt, undefined, new Set());
    checker.reportUnread(stmt);
  }
  return checker.violations;
}

/**
 * The data-modifying CTEs of a statement text (`with x as (insert … returning …)`), as
 * `INSERT x`, `UPDATE x`, `DELETE x`, at any depth. Citus routes a statement with an UPDATE or
 * DELETE CTE of one account to its shard, and plans one with an INSERT CTE through the
 * coordinator, as distributed subplans, whatever account its rows belong to.
 */
export function modifyingCtes(text: string): string[] {
  const found: string[] = [];
  forEachNode(text, (node) => {
    const cte = node.CommonTableExpr;
    if (!cte) return;
    const kind = typeOf(cte.ctequery ?? {});
    if (kind === 'InsertStmt' || kind === 'UpdateStmt' || kind === 'DeleteStmt') found.push(`${kind.replace('Stmt', '').toUpperCase()} ${cte.ctename}`);
  });
  return found;
}

/**
 * The `INSERT … SELECT`s of a statement text that Citus pulls through the coordinator, as
 * `INSERT INTO table (account_id from …)`, at any depth. Citus runs one on the account's shard
 * only when the inserted `account_id` is a column read from a table (a colocated one, held to the
 * account: the tenancy check proves that part) and not from a data-modifying CTE; a parameter or a
 * constant there makes it evaluate the SELECT on the coordinator and send its rows on. `INSERT …
 * VALUES` is routed row by row and is not one of these.
 */
export function insertsPulledThroughCoordinator(text: string): string[] {
  const found: string[] = [];
  forEachNode(text, (node) => {
    const insert = node.InsertStmt;
    if (!insert?.selectStmt?.SelectStmt || insert.selectStmt.SelectStmt.valuesLists) return;
    const table = insert.relation?.relname as string;
    const column = (insert.cols ?? []).findIndex((target: AstNode) => target.ResTarget?.name === 'account_id');
    const fromModifyingCte = (insert.withClause?.ctes ?? []).some((cte: AstNode) => typeOf(cte.CommonTableExpr?.ctequery ?? {}) !== 'SelectStmt');
    const pulled = (column < 0 ? [] : selectedAt(insert.selectStmt.SelectStmt, column)).filter((source) => source !== 'a column');
    if (fromModifyingCte) found.push(`INSERT INTO ${table} (rows from a data-modifying CTE)`);
    else if (pulled.length) found.push(`INSERT INTO ${table} (account_id from ${pulled[0]})`);
  });
  return found;
}

/** Calls `visit` on every node of the statements' parse trees, parents before their children. */
function forEachNode(text: string, visit: (node: AstNode) => void): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    visit(node);
    Object.values(node).forEach(walk);
  };
  walk((parseSync(text) as { stmts?: { stmt: AstNode }[] }).stmts ?? []);
}

/** What a SELECT (each arm of a UNION) gives at a position of its select list: 'a column', 'a parameter', … */
function selectedAt(select: AstNode, position: number): string[] {
  if (select.op && select.op !== 'SETOP_NONE') return [...selectedAt(select.larg, position), ...selectedAt(select.rarg, position)];
  const value = select.targetList?.[position]?.ResTarget?.val;
  if (!value) return ['nothing'];
  const cast = value.TypeCast?.arg ?? value;
  if (cast.ColumnRef) {
    const fields = cast.ColumnRef.fields as AstNode[];
    // `r.*` names no column: what it gives depends on the subquery, which Citus reads the same way.
    return fields.at(-1)?.A_Star ? ['a star'] : ['a column'];
  }
  if (cast.ParamRef) return ['a parameter'];
  if (cast.A_Const) return ['a constant'];
  return ['an expression'];
}

// ---------------------------------------------------------------------------------------------
// The parse tree is JSON: each node an object with one key, its type (`{ SelectStmt: {...} }`).

type AstNode = Record<string, any>;

const queryTypes = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/**
 * Functions PostgreSQL marks volatile that a gateway statement might call: Citus refuses them in
 * an UPDATE of a distributed table (each shard would call them on its own).
 */
const volatileFunctions = new Set([
  'clock_timestamp',
  'timeofday',
  'random',
  'gen_random_uuid',
  'uuid_generate_v4',
  'nextval',
  'setval',
  'txid_current',
  'pg_advisory_xact_lock',
  'pg_advisory_lock',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_lock',
  'pg_notify',
]);

/** Every function called anywhere in a parse tree, by its last name part. */
function functionNames(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) functionNames(item, found);
  else if (node && typeof node === 'object') {
    const call = (node as AstNode).FuncCall;
    if (call) found.push(call.funcname?.at(-1)?.String?.sval);
    for (const value of Object.values(node)) functionNames(value, found);
  }
  return found;
}

/** Whether a node of this type appears anywhere in a parse tree. */
function containsType(node: unknown, type: string): boolean {
  if (Array.isArray(node)) return node.some((item) => containsType(item, type));
  if (!node || typeof node !== 'object') return false;
  if (type in node) return true;
  return Object.values(node).some((value) => containsType(value, type));
}

function typeOf(node: AstNode): string {
  return Object.keys(node)[0];
}

/** A reference in a FROM list (or an UPDATE/DELETE target). */
interface Entry {
  name: string;
  table?: string;
  /** tenant: held by account_id; accounts: held by id; derived: a CTE, subquery or function, checked on its own. */
  kind: 'tenant' | 'accounts' | 'derived' | 'other';
}

/** The references of one query level, and the level around it (for correlated references). */
interface Scope {
  entries: Entry[];
  parent?: Scope;
  /** This level is an EXISTS (or NOT EXISTS) test of its parent, which PostgreSQL makes a join. */
  exists?: boolean;
}

/**
 * One side of an equality: a level's reference (its key column), a value that is one account
 * ('bound'), an outer query's account column that Citus cannot route by ('outer'), or neither.
 */
type Term = Entry | Value | undefined;
type Value = 'bound' | 'outer';

/** `from` holding one account makes `to` hold it. */
interface Edge {
  from: Entry | Value;
  to: Entry;
}

class StatementChecker {
  readonly violations: Violation[] = [];
  /** Nested queries already checked while reading an IN (subquery) condition. */
  private readonly checked = new WeakSet<object>();
  /** The table references the rules have read (FROM items, UPDATE/DELETE targets, INSERT targets). */
  private readonly read = new WeakSet<object>();

  constructor(private readonly tables: TenancyTables) {}

  /** Any statement: queries are checked; anything else (DDL, EXPLAIN, …) for the queries inside it. */
  checkAny(node: AstNode, parent: Scope | undefined, ctes: ReadonlySet<string>): void {
    if (queryTypes.has(typeOf(node))) this.checkQuery(node, parent, ctes);
    else {
      if (typeOf(node) === 'TruncateStmt') {
        for (const relation of node.TruncateStmt.relations ?? []) this.checkAppendOnly(relation.RangeVar?.relname, 'TRUNCATE', ctes);
      }
      this.checkNested(node, parent, ctes);
    }
  }

  /** A change other than INSERT to an append-only table: reported whatever holds it to one account. */
  private checkAppendOnly(table: string | undefined, change: string, ctes: ReadonlySet<string>): void {
    if (table && this.tables.appendOnly.has(table) && !ctes.has(table)) {
      this.violations.push({ table, reference: table, problem: `${change} of an append-only table (its rows are only ever inserted)` });
    }
  }

  /** Checks a query; answers the levels whose select lists give its rows (several for UNION and the like). */
  checkQuery(node: AstNode, parent: Scope | undefined, outerCtes: ReadonlySet<string>, exists = false): Level[] {
    const type = typeOf(node);
    const body = node[type];
    this.checked.add(body);
    const ctes = this.withCtes(body.withClause, parent, outerCtes);
    switch (type) {
      case 'SelectStmt':
        return this.checkSelect(body, parent, ctes, exists);
      case 'UpdateStmt':
      case 'DeleteStmt':
        this.checkChange(type, body, parent, ctes);
        return [];
      case 'InsertStmt':
        this.checkInsert(body, parent, ctes);
        return [];
      default:
        // MERGE: not used by the gateway; its tables are reported as unread (reportUnread).
        return [];
    }
  }

  /** The CTEs' own queries are checked; their names hide tables of the same name from here on. */
  private withCtes(withClause: AstNode | undefined, parent: Scope | undefined, outer: ReadonlySet<string>): ReadonlySet<string> {
    if (!withClause) return outer;
    const ctes = new Set(outer);
    for (const cte of withClause.ctes ?? []) ctes.add(cte.CommonTableExpr.ctename);
    for (const cte of withClause.ctes ?? []) this.checkAny(cte.CommonTableExpr.ctequery, parent, ctes);
    return ctes;
  }

  private checkSelect(body: AstNode, parent: Scope | undefined, ctes: ReadonlySet<string>, exists = false): Level[] {
    if (body.op && body.op !== 'SETOP_NONE') {
      return [...this.checkQuery({ SelectStmt: body.larg }, parent, ctes), ...this.checkQuery({ SelectStmt: body.rarg }, parent, ctes)];
    }
    const level = new Level(this.tables, this.read, parent, ctes, exists);
    level.targets = body.targetList ?? [];
    for (const item of body.fromClause ?? []) this.addFromItem(item, level);
    level.addConditions(body.whereClause, 'inner');
    this.checkConditionSubqueries(body.whereClause, level);
    this.checkJoinedExists(body.whereClause, level);
    this.report(level);
    const { fromClause: _from, withClause: _with, ...rest } = body;
    this.checkNested(rest, level.scope, ctes);
    return [level];
  }

  private checkChange(type: 'UpdateStmt' | 'DeleteStmt', body: AstNode, parent: Scope | undefined, ctes: ReadonlySet<string>): void {
    const level = new Level(this.tables, this.read, parent, ctes);
    level.addRangeVar(body.relation.RangeVar ?? body.relation);
    for (const item of (type === 'UpdateStmt' ? body.fromClause : body.usingClause) ?? []) this.addFromItem(item, level);
    level.addConditions(body.whereClause, 'inner');
    this.checkConditionSubqueries(body.whereClause, level);
    this.checkJoinedExists(body.whereClause, level);
    this.report(level);
    const table: string = (body.relation.RangeVar ?? body.relation).relname;
    this.checkAppendOnly(table, type === 'UpdateStmt' ? 'UPDATE' : 'DELETE', ctes);
    if (type === 'UpdateStmt' && this.tables.tenant.has(table) && !ctes.has(table)) {
      // Citus: "functions used in UPDATE queries on distributed tables must not be VOLATILE".
      for (const name of functionNames({ targetList: body.targetList, whereClause: body.whereClause })) {
        if (volatileFunctions.has(name))
          this.violations.push({ table, reference: table, problem: `volatile function ${name}() in an UPDATE of a distributed table (read it first, pass it as a parameter)` });
      }
    }
    const { relation: _r, fromClause: _f, usingClause: _u, withClause: _w, ...rest } = body;
    this.checkNested(rest, level.scope, ctes);
  }

  private checkInsert(body: AstNode, parent: Scope | undefined, ctes: ReadonlySet<string>): void {
    this.read.add(body.relation);
    const table: string = body.relation.relname;
    const columns: string[] = (body.cols ?? []).map((col: AstNode) => col.ResTarget.name);
    const position = columns.indexOf('account_id');
    const source = body.selectStmt as AstNode | undefined;
    const tenant = this.tables.tenant.has(table) && !ctes.has(table);
    if (body.onConflictClause?.action === 'ONCONFLICT_UPDATE') this.checkAppendOnly(table, 'INSERT … ON CONFLICT DO UPDATE', ctes);
    if (tenant && position < 0) {
      this.violations.push({ table, reference: table, problem: 'INSERT does not name account_id' });
    }
    if (source) {
      const values: AstNode[][] | undefined = source.SelectStmt?.valuesLists?.map((row: AstNode) => row.List.items);
      if (values) {
        const level = new Level(this.tables, this.read, parent, ctes);
        // Citus: "subqueries are not supported within INSERT queries".
        if (tenant && containsType(values, 'SubLink')) this.violations.push({ table, reference: table, problem: "subquery in an INSERT's values (read it first, pass it as a parameter)" });
        if (tenant && position >= 0 && values.some((row) => level.term(row[position]) !== 'bound')) {
          this.violations.push({ table, reference: table, problem: 'INSERT … VALUES gives account_id something other than a parameter or a constant' });
        }
        this.checkNested(source, parent, ctes);
      } else {
        const levels = this.checkQuery(source, parent, ctes);
        if (tenant && position >= 0) {
          for (const level of levels) {
            const target = level.targets[position];
            if (!target || level.term(target) === undefined) {
              this.violations.push({ table, reference: table, problem: 'INSERT … SELECT takes account_id from something not held to one account' });
            }
          }
        }
      }
    }
    const { relation: _r, cols: _c, selectStmt: _s, withClause: _w, ...rest } = body;
    this.checkNested(rest, parent, ctes);
  }

  /** A FROM item: tables become references; subqueries, joins and functions are looked into. */
  private addFromItem(item: AstNode, level: Level): Entry[] {
    const type = typeOf(item);
    const body = item[type];
    if (type === 'RangeVar') return [level.addRangeVar(body)];
    if (type === 'RangeSubselect') {
      // A LATERAL subquery sees the references before it; any subquery is checked on its own.
      this.checkQuery(body.subquery, body.lateral ? level.scope : level.scope.parent, level.ctes);
      return [level.addDerived(body.alias?.aliasname)];
    }
    if (type === 'JoinExpr') {
      const left = this.addFromItem(body.larg, level);
      const right = this.addFromItem(body.rarg, level);
      level.addJoin(body, left, right);
      this.checkConditionSubqueries(body.quals, level);
      this.checkNested(body.quals, level.scope, level.ctes);
      return [...left, ...right];
    }
    // Functions (unnest, jsonb_to_recordset, …) and anything else: rows from outside any table.
    this.checkNested(body, level.scope, level.ctes);
    return [level.addDerived(body.alias?.aliasname)];
  }

  /** `x.account_id in (select …)`: the subquery, checked first, may make the column one account. */
  private checkConditionSubqueries(condition: AstNode | undefined, level: Level): void {
    for (const conjunct of conjuncts(condition)) {
      const link = conjunct.SubLink;
      if (!link || link.subLinkType !== 'ANY_SUBLINK' || !isEquality(link.operName)) continue;
      const inner = this.checkQuery(link.subselect, level.scope, level.ctes);
      const tested: AstNode[] = link.testexpr.RowExpr?.args ?? [link.testexpr];
      tested.forEach((expression, index) => {
        const term = level.term(expression);
        if (term === undefined || isValue(term)) return;
        if (inner.every((arm) => arm.targets[index] && arm.holds(arm.targets[index]))) level.edges.push({ from: 'bound', to: term });
      });
    }
  }

  /**
   * `[not] exists (…)` among the conditions that must all hold: PostgreSQL makes it a (semi or anti)
   * join, so Citus routes it by the outer row's account. Under OR it stays a subquery per row.
   */
  private checkJoinedExists(condition: AstNode | undefined, level: Level): void {
    for (const conjunct of conjuncts(condition)) {
      const negated = conjunct.BoolExpr?.boolop === 'NOT_EXPR' ? conjunct.BoolExpr.args[0] : conjunct;
      const link = negated.SubLink;
      if (link?.subLinkType !== 'EXISTS_SUBLINK' || this.checked.has(link.subselect.SelectStmt)) continue;
      this.checkQuery(link.subselect, level.scope, level.ctes, true);
    }
  }

  /** Queries nested anywhere in `node` (subqueries in a select list, a CASE, a function's arguments, …). */
  private checkNested(node: unknown, scope: Scope | undefined, ctes: ReadonlySet<string>): void {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) this.checkNested(item, scope, ctes);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (queryTypes.has(key)) {
        const wrapped = { [key]: value };
        if (!this.checked.has(value as object)) this.checkQuery(wrapped, scope, ctes);
        this.checked.add(value as object);
      } else this.checkNested(value, scope, ctes);
    }
  }

  private report(level: Level): void {
    const held = level.held();
    const routed = level.held(['bound']);
    for (const entry of level.scope.entries) {
      if (routed.has(entry) || (entry.kind !== 'tenant' && entry.kind !== 'accounts')) continue;
      this.violations.push({
        table: entry.table!,
        reference: entry.name,
        problem: held.has(entry)
          ? "held to one account only by an outer query's column, which Citus plans on every shard (name the account by the statement's value)"
          : entry.kind === 'accounts'
            ? 'no condition on its id'
            : 'no condition on its account_id',
      });
    }
  }

  /**
   * A tenant table named where no rule above reads it (TRUNCATE, COPY, LOCK, a clause not yet
   * known): reported, so that a shape the check does not understand cannot pass unseen.
   */
  reportUnread(statement: AstNode): void {
    const walk = (value: unknown): void => {
      if (!value || typeof value !== 'object') return;
      if (Array.isArray(value)) return value.forEach(walk);
      // A table reference (a RangeVar's body, wrapped in a FROM list or bare as a statement's target).
      const range = value as AstNode;
      const table = range.relname;
      if (typeof table === 'string' && !this.read.has(range) && (this.tables.tenant.has(table) || table === this.tables.accounts)) {
        this.violations.push({ table, reference: range.alias?.aliasname ?? table, problem: 'named where the check does not read it' });
      }
      Object.values(range).forEach(walk);
    };
    walk(statement);
  }
}

/** One query level: its references, the equalities that hold them, and its select list. */
class Level {
  readonly scope: Scope;
  readonly edges: Edge[] = [];
  targets: AstNode[] = [];

  constructor(
    private readonly tables: TenancyTables,
    private readonly read: WeakSet<object>,
    parent: Scope | undefined,
    readonly ctes: ReadonlySet<string>,
    exists = false,
  ) {
    this.scope = { entries: [], parent, exists };
  }

  addRangeVar(range: AstNode): Entry {
    this.read.add(range);
    const table: string = range.relname;
    const name: string = range.alias?.aliasname ?? table;
    const isCte = !range.schemaname && this.ctes.has(table);
    const kind = isCte ? 'derived' : this.tables.tenant.has(table) ? 'tenant' : table === this.tables.accounts ? 'accounts' : 'other';
    const entry: Entry = { name, table, kind };
    this.scope.entries.push(entry);
    return entry;
  }

  addDerived(alias: string | undefined): Entry {
    const entry: Entry = { name: alias ?? '', kind: 'derived' };
    this.scope.entries.push(entry);
    return entry;
  }

  /**
   * A join's conditions. Inner: as if in WHERE. Outer: they hold only the side the join may leave
   * empty (a LEFT JOIN's right side), never the side whose rows are all kept.
   */
  addJoin(join: AstNode, left: Entry[], right: Entry[]): void {
    const kind: string = join.jointype;
    const restricted = kind === 'JOIN_INNER' ? undefined : new Set(kind === 'JOIN_LEFT' ? right : kind === 'JOIN_RIGHT' ? left : []);
    const allow = (entry: Entry) => !restricted || restricted.has(entry);
    if (join.quals) this.addConditions(join.quals, allow);
    for (const column of join.usingClause ?? []) {
      if (column.String.sval !== 'account_id') continue;
      const keyOf = (entry: Entry): Term => (entry.kind === 'tenant' ? entry : entry.kind === 'derived' ? 'bound' : undefined);
      for (const a of left) for (const b of right) this.addEquality(keyOf(a), keyOf(b), allow);
    }
  }

  addConditions(condition: AstNode | undefined, allow: 'inner' | ((entry: Entry) => boolean)): void {
    const allowed = allow === 'inner' ? () => true : allow;
    for (const conjunct of conjuncts(condition)) {
      const expression = conjunct.A_Expr;
      if (!expression) continue;
      if (expression.kind === 'AEXPR_OP' && isEquality(expression.name)) {
        const left: AstNode[] = expression.lexpr.RowExpr?.args ?? [expression.lexpr];
        const right: AstNode[] = expression.rexpr.RowExpr?.args ?? [expression.rexpr];
        if (left.length === right.length) left.forEach((l, i) => this.addEquality(this.term(l), this.term(right[i]), allowed));
      } else if (expression.kind === 'AEXPR_IN' && isEquality(expression.name) && expression.rexpr.List?.items.length === 1) {
        this.addEquality(this.term(expression.lexpr), this.term(expression.rexpr.List.items[0]), allowed);
      }
    }
  }

  private addEquality(a: Term, b: Term, allow: (entry: Entry) => boolean): void {
    if (!a || !b) return;
    if (!isValue(b) && allow(b)) this.edges.push({ from: a, to: b });
    if (!isValue(a) && allow(a)) this.edges.push({ from: b, to: a });
  }

  /** What an expression is to this level: a reference's key, one account for sure, or neither. */
  term(expression: AstNode | undefined): Term {
    if (!expression) return undefined;
    const type = typeOf(expression);
    const body = expression[type];
    if (type === 'ParamRef' || type === 'A_Const') return 'bound';
    if (type === 'TypeCast') return this.term(body.arg);
    if (type === 'ResTarget') return this.term(body.val);
    // A scalar subquery answers one value; the subquery itself is checked on its own.
    if (type === 'SubLink' && body.subLinkType === 'EXPR_SUBLINK') return 'bound';
    if (type === 'ColumnRef') return this.column(body.fields);
    return undefined;
  }

  /** The references held to one account, following the equalities from the values given (by default, any). */
  held(values: Value[] = ['bound', 'outer']): Set<Entry | Value> {
    const held = new Set<Entry | Value>(values);
    for (let grew = true; grew;) {
      grew = false;
      for (const edge of this.edges) {
        if (held.has(edge.from) && !held.has(edge.to)) {
          held.add(edge.to);
          grew = true;
        }
      }
    }
    return held;
  }

  /** Whether a select-list expression is one account once this level's equalities are followed. */
  holds(target: AstNode): boolean {
    const term = this.term(target);
    return term !== undefined && this.held().has(term);
  }

  private column(fields: AstNode[]): Term {
    const names = fields.map((field) => field.String?.sval as string | undefined);
    const column = names[names.length - 1];
    if (!column) return undefined;
    const qualifier = names.length >= 2 ? names[names.length - 2] : undefined;
    // Whether every level between here and the column's is an EXISTS test (PostgreSQL joins them).
    let joined = true;
    for (let scope: Scope | undefined = this.scope, depth = 0; scope; joined &&= Boolean(scope.exists), scope = scope.parent, depth++) {
      const entry = qualifier ? scope.entries.find((candidate) => candidate.name === qualifier) : this.unqualified(scope, column);
      if (!entry) continue;
      const key = keyOf(entry, column);
      // A column of an outer level is one value for each run of this level: its own level holds it (or is reported).
      return key && depth > 0 ? (joined ? 'bound' : 'outer') : key;
    }
    return undefined;
  }

  /** The reference an unqualified key column belongs to (PostgreSQL refuses an ambiguous one). */
  private unqualified(scope: Scope, column: string): Entry | undefined {
    if (column === 'account_id') {
      return scope.entries.find((entry) => entry.kind === 'tenant') ?? scope.entries.find((entry) => entry.kind === 'derived');
    }
    if (column === 'id' && scope.entries.length === 1 && scope.entries[0].kind === 'accounts') return scope.entries[0];
    return undefined;
  }
}

function keyOf(entry: Entry, column: string): Term {
  if (entry.kind === 'tenant' && column === 'account_id') return entry;
  if (entry.kind === 'accounts' && column === 'id') return entry;
  if (entry.kind === 'derived' && column === 'account_id') return 'bound';
  return undefined;
}

function isValue(term: Term): term is Value {
  return term === 'bound' || term === 'outer';
}

/** The conditions that must all hold: the arguments of top-level ANDs. */
function conjuncts(condition: AstNode | undefined): AstNode[] {
  if (!condition) return [];
  const bool = condition.BoolExpr;
  if (bool?.boolop === 'AND_EXPR') return bool.args.flatMap(conjuncts);
  return [condition];
}

function isEquality(name: AstNode[] | undefined): boolean {
  return !name || (name.length === 1 && name[0].String?.sval === '=');
}
