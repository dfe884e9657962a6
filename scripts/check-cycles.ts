import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * `npm run check:cycles`: fails when the folders of src/ import each other in a cycle, printing
 * each cycle as the chain of imports that makes it.
 *
 * A folder is `src/modules/<domain>` for a domain module, `src/<folder>` otherwise (db, lib, core,
 * filters, graphql, rest, http, …, with everything beneath it), and each file directly under src/
 * (main.ts, config.ts, …) stands alone. Every import counts: static and dynamic imports,
 * re-exports, and type-only imports too (`import type`, `import('…').T`, `declare module '…'`).
 * Types vanish at run time, but a type that names a module still ties the folders together: the
 * kernel could not be understood, changed or moved without the module it names.
 *
 * No import is exempt. The domain modules keep one order (docs/layout.md, "Imports between
 * folders"): score-windows → members → activities → scoring → brands → segments → lifecycle, each
 * importing only those before it. A write that keeps another module's derived data current calls
 * down (members and activities call score-windows' writes in their own transactions), and one that
 * spans modules is made above them all, in lifecycle/ (registration with its opt-in, merges, the
 * kept-data worker). `--strict`, which once checked without a list of allowed imports, is accepted
 * and changes nothing.
 *
 * Imports are resolved by the TypeScript compiler with the project's tsconfig.json, so `.js`
 * specifiers find their `.ts` files as they do for tsc.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const sourceRoot = path.join(root, 'src');

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

/** Every module specifier a file names, and whether only types come through it. */
function specifiersOf(file: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly || (!!node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      found.push({ specifier: node.name.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The folder a file belongs to, as the check sees it (a path relative to src/). */
function folderOf(file: string): string {
  const parts = path.relative(sourceRoot, file).split(path.sep);
  if (parts.length === 1) return parts[0];
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts[0];
}

function readImports(): Import[] {
  const options = compilerOptions();
  const imports: Import[] = [];
  for (const file of sourceFiles(sourceRoot)) {
    for (const { specifier, typeOnly } of specifiersOf(file)) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const to = path.resolve(resolved.resolvedFileName);
      if (!to.startsWith(sourceRoot + path.sep) || to === file) continue;
      imports.push({ from: file, to, typeOnly });
    }
  }
  return imports;
}

/** The elementary cycles of a directed graph (Johnson's algorithm), at most `limit` of them. */
function elementaryCycles(nodes: string[], edges: Map<string, Set<string>>, limit: number): { cycles: string[][]; complete: boolean } {
  const cycles: string[][] = [];
  const order = [...nodes].sort();
  for (let start = 0; start < order.length; start++) {
    const allowed = new Set(order.slice(start));
    const blocked = new Set<string>();
    const blockedBy = new Map<string, Set<string>>();
    const stack: string[] = [];
    const unblock = (node: string): void => {
      blocked.delete(node);
      for (const other of blockedBy.get(node) ?? []) if (blocked.has(other)) unblock(other);
      blockedBy.delete(node);
    };
    const circuit = (node: string): boolean => {
      let closed = false;
      stack.push(node);
      blocked.add(node);
      for (const next of edges.get(node) ?? []) {
        if (!allowed.has(next)) continue;
        if (next === order[start]) {
          cycles.push([...stack]);
          closed = true;
          if (cycles.length >= limit) return true;
        } else if (!blocked.has(next) && circuit(next)) {
          closed = true;
        }
        if (cycles.length >= limit) return true;
      }
      if (closed) unblock(node);
      else for (const next of edges.get(node) ?? []) if (allowed.has(next)) (blockedBy.get(next) ?? blockedBy.set(next, new Set()).get(next)!).add(node);
      stack.pop();
      return closed;
    };
    circuit(order[start]);
    if (cycles.length >= limit) return { cycles, complete: false };
  }
  return { cycles, complete: true };
}

const relative = (file: string) => path.relative(root, file);
const allImports = readImports();

const between = new Map<string, Import[]>(); // "a b" → the imports from folder a into folder b
const edges = new Map<string, Set<string>>();
for (const found of allImports) {
  const [a, b] = [folderOf(found.from), folderOf(found.to)];
  if (a === b) continue;
  (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
  (between.get(`${a} ${b}`) ?? between.set(`${a} ${b}`, []).get(`${a} ${b}`)!).push(found);
}

if (process.argv.includes('--list')) {
  // `npm run check:cycles -- --list`: every import from one folder into another, by folder.
  for (const [key, found] of [...between].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(key.replace(' ', ' → '));
    for (const { from, to, typeOnly } of found) console.log(`  ${relative(from)} → ${relative(to)}${typeOnly ? ' (types only)' : ''}`);
  }
}

const limit = 100_000;
const { cycles, complete } = elementaryCycles([...edges.keys()], edges, limit);
if (cycles.length === 0) {
  console.log(`no import cycle between folders (${allImports.length} imports between files of src/)`);
  process.exit(0);
}

const shown = 40;
cycles.sort((a, b) => a.length - b.length || a.join(' ').localeCompare(b.join(' ')));
console.log(`${complete ? cycles.length : `more than ${limit}`} import cycle(s) between folders${cycles.length > shown ? `; the ${shown} shortest:` : ':'}`);
for (const cycle of cycles.slice(0, shown)) {
  console.log(`\n${[...cycle, cycle[0]].join(' → ')}`);
  let previous: string | undefined;
  cycle.forEach((folder, index) => {
    const next = cycle[(index + 1) % cycle.length];
    const candidates = between.get(`${folder} ${next}`)!;
    // One import per step, continuing from the file the last step reached where one does, values before types.
    const pick =
      candidates.find((found) => found.from === previous && !found.typeOnly) ?? candidates.find((found) => found.from === previous) ?? candidates.find((found) => !found.typeOnly) ?? candidates[0];
    const others = candidates.length > 1 ? ` (and ${candidates.length - 1} more)` : '';
    console.log(`  ${relative(pick.from)} → ${relative(pick.to)}${pick.typeOnly ? ' (types only)' : ''}${others}`);
    previous = pick.to;
  });
}
process.exit(1);
