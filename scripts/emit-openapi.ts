// Writes openapi.json, the /v1.1 interface's OpenAPI document as /v1.1/openapi.json serves it, from
// the REST route table. Run by `npm run generate`; CI checks the committed file is current, and
// `npm run check:api` compares it with the last release's.
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../src/rest/openapi/document.js';
import { restRoutes } from '../src/rest/table.js';

await writeFile(new URL('../openapi.json', import.meta.url), JSON.stringify(openApiDocument(restRoutes), null, 2) + '\n');
console.log('openapi.json written');
