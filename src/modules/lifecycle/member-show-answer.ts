import {
  getArgumentValues,
  getVariableValues,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { completePlan, directiveVariables, planSelection, type PlainPlan, type StandIns } from '../../core/plain-answer.js';
import { openForAnswer, serviceSummaryFields, toMember, toServiceLink, toServiceSummary } from '../members/members.mapping.js';
import { readWith, type MemberReads, type MemberRowWith } from '../members/members.queries.js';
import * as members from '../members/members.service.js';
import { lookupOfRef, type MemberLookupInput, type MemberRef } from '../members/members.types.js';
import { toOptIn } from '../segments/optins.service.js';

/**
 * `member(lookup:)` or `member(ref:)` answered without its resolvers: the member show of `/v1.1`
 * (`GET /v1.1/member/[id]`) and of a front end asks for the member, its services and opt-ins,
 * its access token and its JWT, all of which one statement reads (findMember with `MemberReads`).
 * Through the resolvers a tenth to a quarter of such a request's CPU went into running them
 * (type-graphql's handlers, a promise per field, the loaders); here the statement's row is
 * completed against the selection directly (core/plain-answer.ts).
 *
 * A document qualifies when its only root field is `member`, with no `refresh`, and every field it
 * selects is a plain property of its object or one of the four below; `@include`/`@skip` are
 * decided per request, so the REST document's optional parts (extended, position, actions, top
 * brands) decline only when asked for. An API key's caller only. Anything else, and any failure
 * (a member not found, an id refused), and a member named other than by id (its lookup reads the
 * member alone), runs through the resolvers, which give the same answer or
 * the error: test/members/member-show-answer.test.ts compares the two.
 */
type MemberShowAnswer = (context: Context, variables: Record<string, unknown> | undefined) => Promise<ExecutionResult | undefined>;

/** Plans kept per document, one per combination of the `@include`/`@skip` variables' values. */
const plansKept = 16;

/** The resolver fields of Member this answer stands in for; their values are filled per request. */
const memberStandIns = ['jwt', 'accessToken', 'services', 'optins'] as const;
const staticStandIns: StandIns = { Member: Object.fromEntries(memberStandIns.map((name) => [name, () => undefined])) };

export function memberShowAnswer(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): MemberShowAnswer | undefined {
  if (operation.operation !== OperationTypeNode.QUERY || operation.directives?.length) return undefined;
  const [root, ...others] = operation.selectionSet.selections;
  if (others.length || root.kind !== Kind.FIELD || root.name.value !== 'member' || root.directives?.length || !root.selectionSet) return undefined;
  const field = schema.getQueryType()?.getFields().member;
  const memberType = schema.getType('Member');
  if (!field || !isObjectType(memberType)) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const conditions = directiveVariables([root.selectionSet, ...Object.values(fragments).map((fragment) => fragment.selectionSet)]);
  const plans = new Map<string, PlainPlan | null>();
  const key = root.alias?.value ?? root.name.value;
  const selectionSet = root.selectionSet;

  return async (context, variables) => {
    const caller = context.caller;
    if (caller.kind !== 'application') return undefined;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
    if (coerced.errors) return undefined;
    let args: { lookup?: MemberLookupInput | null; ref?: MemberRef | null; refresh?: boolean };
    try {
      args = getArgumentValues(field, root, coerced.coerced);
    } catch {
      return undefined;
    }
    if (args.refresh || Boolean(args.lookup) === Boolean(args.ref)) return undefined;
    // By id only: the other lookups read the member alone, and its fields then load the rest.
    const lookup = args.ref ? lookupOfRef(args.ref) : args.lookup!;
    if (!lookup.id || lookup.id === '0') return undefined;
    const planKey = JSON.stringify(conditions.map((name) => coerced.coerced[name]));
    let plan = plans.get(planKey);
    if (plan === undefined) {
      plan = planSelection(memberType, selectionSet, fragments, coerced.coerced, staticStandIns) ?? null;
      if (plans.size >= plansKept) plans.delete(plans.keys().next().value!);
      plans.set(planKey, plan);
    }
    if (!plan) return undefined;
    try {
      return { data: { [key]: await answer(context, caller, plan, lookup, args.ref ? 'ref' : 'id') } };
    } catch {
      // The resolvers run the lookup again and report the failure as every other field does.
      return undefined;
    }
  };
}

async function answer(context: Context, caller: ApplicationCaller, plan: PlainPlan, lookup: MemberLookupInput, idParam: 'id' | 'ref') {
  const asked = new Map(plan.fields.map((field) => [field.name, field]));
  const services = asked.get('services')?.selection;
  const serviceFields = new Set(services?.fields.map((field) => field.name));
  // What Member.services and Member.optins would read, read with the member as member() does.
  const reads: MemberReads = {
    services: services ? ([...serviceFields].every((name) => serviceSummaryFields.has(name)) ? 'summary' : 'whole') : undefined,
    domains: serviceFields.has('domains'),
    optins: asked.has('optins'),
  };
  const row: MemberRowWith = await members.lookupMember(context.database.db, caller.accountId, lookup, reads, idParam);
  const read = row[readWith];
  const jwt = asked.has('jwt')
    ? await context.identity.signingKeys.signRecent({ accountId: caller.accountId, applicationId: caller.applicationId, memberId: row.id, sessionGeneration: row.sessionGeneration })
    : null;
  // The values the resolvers of members.resolver.ts and optins.resolver.ts give for this row.
  const standIns: StandIns = {
    Member: {
      jwt: () => jwt,
      accessToken: () => openForAnswer(context, row.accessTokenSealed, { memberId: row.id, field: 'accessToken' }),
      services: () =>
        reads.services === 'summary' ? read!.serviceSummaries!.map(toServiceSummary) : read!.services!.map((service) => toServiceLink(service, reads.domains ? read!.domains! : [], context)),
      optins: () => read!.optins!.map(toOptIn),
    },
  };
  return completePlan(plan, toMember(row) as unknown as Record<string, unknown>, standIns);
}
