/**
 * An insert of rows of values carries one parameter per value, and a statement may carry at most
 * 65,535: a merge moves every daily rollup row of the merged member (years of a daily listener's
 * history are thousands of rows of nine columns). Such inserts are sent in statements of at most
 * this many rows, in the rows' order, so the locks they take keep that order.
 */
export const valueRowsPerStatement = 1_000;

/** `rows` in their order, split into runs of at most `valueRowsPerStatement`. */
export function statementRuns<T>(rows: readonly T[]): T[][] {
  const runs: T[][] = [];
  for (let at = 0; at < rows.length; at += valueRowsPerStatement) runs.push(rows.slice(at, at + valueRowsPerStatement));
  return runs;
}
