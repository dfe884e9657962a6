/**
 * Statements that read several accounts by design, each with the reason it must. An entry names a
 * piece of the statement's text (whitespace collapsed to single spaces) and the tables it may
 * leave unfiltered there; any other reference in the same statement is still checked. Keep this list
 * short: a statement that can know its account takes it instead (docs/tenancy.md).
 */
export interface AllowedStatement {
  /** A piece of the statement's text that names it without doubt. */
  contains: string;
  /** The tables this statement may read across accounts. */
  tables: string[];
  reason: string;
}

export const allowedStatements: AllowedStatement[] = [];
