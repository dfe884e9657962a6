import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { openApiChanges } from './openapi-changes.js';

/**
 * What changed in the public API between the last release and now, and whether the change may be
 * released: the GraphQL schema (schema.graphql, compared by @graphql-inspector/core) and the /v1.1
 * interface (openapi.json, compared by openapi-changes.ts). A breaking change must be named in
 * CHANGELOG.md's Unreleased section, on a bullet that begins `**Breaking:**` and quotes its coordinate in
 * backticks (`Member.activities`, `GET /v1.1/member/{id}`), and then releases as a major version
 * (scripts/release.ts refuses anything less). A field, input field or enum value is removed only
 * after a release that deprecated it.
 */
export interface ApiChange {
  api: 'graphql' | 'rest';
  breaking: boolean;
  /** The schema coordinate (`Type.field.argument`) or the operation (`GET /v1.1/…`) the change is at. */
  coordinate: string;
  message: string;
  /** A removal of what the last release did not deprecate: refused whatever the changelog says. */
  undeprecatedRemoval?: boolean;
}

export interface ApiDocuments {
  schema: string;
  openApi: unknown;
}

/**
 * Removals whose meta says whether the removed thing was deprecated, by inspector's change type
 * (arguments and types carry no such flag in graphql 16's printed schema: theirs are breaking changes
 * the changelog names).
 */
const deprecatedFlag: Partial<Record<string, string>> = {
  FIELD_REMOVED: 'isRemovedFieldDeprecated',
  ENUM_VALUE_REMOVED: 'isEnumValueDeprecated',
  INPUT_FIELD_REMOVED: 'isInputFieldDeprecated',
};

function fromInspector(change: Change): ApiChange {
  const flag = deprecatedFlag[String(change.type)];
  const meta = change.meta as Record<string, unknown>;
  return {
    api: 'graphql',
    breaking: change.criticality.level === CriticalityLevel.Breaking,
    coordinate: change.path ?? String(change.type),
    message: change.message,
    ...(flag && meta[flag] === false ? { undeprecatedRemoval: true } : {}),
  };
}

export async function apiChanges(released: ApiDocuments, current: ApiDocuments): Promise<ApiChange[]> {
  const graphql = (await diff(buildSchema(released.schema), buildSchema(current.schema))).map(fromInspector);
  return [...graphql, ...openApiChanges(released.openApi, current.openApi)];
}

/** The heading of a Keep a Changelog file's Unreleased section (`## Unreleased` or `## [Unreleased]`). */
export const unreleasedHeading = /^## \[?Unreleased\]?[^\n]*\n/im;

/** The Unreleased section of a Keep a Changelog file (its text up to the next version heading). */
export function unreleasedSection(changelog: string): string | undefined {
  const heading = unreleasedHeading.exec(changelog);
  if (!heading) return undefined;
  const rest = changelog.slice(heading.index + heading[0].length);
  const next = rest.search(/^## /m);
  return next === -1 ? rest : rest.slice(0, next);
}

/** A changelog bullet that declares a breaking change: `- **Breaking:** …`. */
export const breakingLine = /^\s*[-*] \*\*Breaking:\*\*/;

/** The coordinates the Unreleased section names on its `**Breaking:**` bullets. */
export function namedBreakingChanges(changelog: string): Set<string> {
  const named = new Set<string>();
  for (const line of (unreleasedSection(changelog) ?? '').split('\n')) {
    if (!breakingLine.test(line)) continue;
    for (const [, coordinate] of line.matchAll(/`([^`]+)`/g)) named.add(coordinate);
  }
  return named;
}

export interface Verdict {
  /** Problems that stop the change: breaking changes the changelog does not name, removals not deprecated first. */
  problems: string[];
  breaking: ApiChange[];
}

export function judge(changes: readonly ApiChange[], changelog: string): Verdict {
  const named = namedBreakingChanges(changelog);
  const breaking = changes.filter((change) => change.breaking);
  const problems: string[] = [];
  for (const change of breaking) {
    const where = `${change.api === 'graphql' ? 'schema.graphql' : 'openapi.json'}: \`${change.coordinate}\`: ${change.message}`;
    if (change.undeprecatedRemoval) problems.push(`${where} (removed without a release that deprecated it: mark it @deprecated first)`);
    else if (!named.has(change.coordinate)) problems.push(`${where} (breaking: name \`${change.coordinate}\` on a **Breaking:** line of CHANGELOG.md's Unreleased section)`);
  }
  return { problems, breaking };
}
