import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/rest/openapi/document.js';
import { restRoutes } from '../../src/rest/table.js';

/**
 * A client generated from `/v1.1/openapi.json` with openapi-typescript compiles only calls the
 * server takes: the required parameters and the allowed values are those the routes enforce, and
 * every answer has a type. Each call below is type-checked by tsc on its own.
 */

let folder: string;
const document = openApiDocument(restRoutes) as Record<string, any>;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'marquee-openapi-client-'));
  const source = astToString(await openapiTS(document as never));
  writeFileSync(join(folder, 'schema.ts'), source);
  // The generated types, and the client a caller writes around them: the query of an operation
  // and what its 200 answers, by path and method.
  writeFileSync(
    join(folder, 'client.ts'),
    `import type { paths } from './schema.js';
type Method<P extends keyof paths> = { [M in 'get' | 'post']: paths[P][M] extends { parameters: unknown } ? M : never }['get' | 'post'];
type Operation<P extends keyof paths, M extends Method<P>> = paths[P][M] extends infer O ? O : never;
export type QueryOf<P extends keyof paths, M extends Method<P>> = Operation<P, M> extends { parameters: { query?: infer Q } } ? Q : never;
export type AnswerOf<P extends keyof paths, M extends Method<P>> = Operation<P, M> extends { responses: { 200: { content: { 'application/json': infer A } } } } ? A : never;
export declare function call<P extends keyof paths, M extends Method<P>>(method: M, path: P, query: QueryOf<P, M>): Promise<AnswerOf<P, M>>;
`,
  );
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The calls below, each in a file of its own, type-checked together by one tsc program (strict). */
const calls: Record<string, string> = {};
let errorsByFile: Map<string, string[]> | undefined;

function typeErrors(name: string): string[] {
  if (!errorsByFile) {
    const files = Object.entries(calls).map(([file, code]) => {
      const path = join(folder, `${file}.ts`);
      writeFileSync(path, `import { call } from './client.js';\n${code}\n`);
      return path;
    });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
    });
    errorsByFile = new Map(files.map((path) => [path, []]));
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const path = diagnostic.file?.fileName;
      if (path) errorsByFile.get(path)?.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      else throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    }
  }
  return errorsByFile.get(join(folder, `${name}.ts`)) ?? [];
}

calls.accepted = `export async function accepted() {
  const info = await call('get', '/v1.1/app/info', undefined);
  const plan: 'basic' | 'advanced' | 'enterprise' = info.Plan;
  const widget: string = info.Widget.URL;
  const brand = await call('post', '/v1.1/brand/create', { name: 'Band', type: 'Video Game' });
  const brandId: number = brand.ID;
  await call('post', '/v1.1/activity/create', { name: 'Listened', type: 'Listened' });
  await call('post', '/v1.1/segment/create', { name: 'Fans', type: 'list' });
  const page = await call('get', '/v1.1/members/all', {});
  const next: string | null | undefined = page.paging.next;
  const total: number = page.totalSize;
  return [plan, widget, brandId, next, total];
}`;

/** Calls the server refuses: each must fail to compile. */
const refused: [string, string][] = [
  ['brand/create without a name', `call('post', '/v1.1/brand/create', { type: 'Music' });`],
  ['brand/create with a type outside the list', `call('post', '/v1.1/brand/create', { name: 'Band', type: 'Artist' });`],
  ['activity/create without a type', `call('post', '/v1.1/activity/create', { name: 'Listened' });`],
  ['activity/create with a type outside the list', `call('post', '/v1.1/activity/create', { name: 'Danced', type: 'Danced' });`],
  ['segment/create without a name', `call('post', '/v1.1/segment/create', { type: 'list' });`],
  ['a field app/info does not answer', `call('get', '/v1.1/app/info', undefined).then((info) => info.Nope);`],
];
const fileOf = (name: string) => name.replace(/\W+/g, '-');
for (const [name, code] of refused) calls[fileOf(name)] = code;

describe('a client generated with openapi-typescript', () => {
  it('compiles the calls the server takes, and reads typed answers', () => {
    expect(typeErrors('accepted')).toEqual([]);
  }, 180_000);

  it.each(refused)('refuses to compile %s', (name) => {
    expect(typeErrors(fileOf(name)).length).toBeGreaterThan(0);
  });

  it('every operation answers a named schema, and the create operations mark what they need', () => {
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        expect(operation.responses['200'].content['application/json'].schema.$ref, `${method} ${path}`).toMatch(/^#\/components\/schemas\//);
      }
    }
    const parameter = (path: string, name: string) => document.paths[path].post.parameters.find((p: { name: string }) => p.name === name);
    expect(parameter('/v1.1/brand/create', 'name').required).toBe(true);
    expect(parameter('/v1.1/brand/create', 'type')).toMatchObject({ required: false, schema: { enum: ['Music', 'Sport', 'Consumer', 'Movie', 'TV', 'Video Game', 'Influencer'] } });
    expect(parameter('/v1.1/activity/create', 'name').required).toBe(true);
    expect(parameter('/v1.1/activity/create', 'type')).toMatchObject({ required: true, schema: { enum: expect.arrayContaining(['Listened', 'Watched', 'Custom']) } });
    expect(parameter('/v1.1/segment/create', 'name').required).toBe(true);
    expect(parameter('/v1.1/segment/create', 'type').schema.enum).toEqual(['list', 'filter']);
  });
});
