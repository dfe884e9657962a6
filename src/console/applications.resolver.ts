import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { invalidParameter } from '../core/errors.js';
import { isId } from '../lib/ids.js';
import { createAccountApplicationKey, listApplications, listKeys, revokeAccountApiKey } from '../modules/tenancy/tenancy.service.js';
import { ConsoleApiKeyType, ConsoleApplicationType, CreatedApiKeyType } from './applications.types.js';
import { staffCaller, type ConsoleRule } from './auth.js';
import type { ConsoleContext } from './context.js';

type KeyRow = Awaited<ReturnType<typeof listKeys>>[number];

/** Owners: the account's applications and their API keys, a new key (shown once), a key revoked. */
@Resolver()
export class ConsoleApplicationsResolver {
  @Authorized<ConsoleRule>('applications.manage')
  @Query(() => [ConsoleApplicationType], { description: "The account's applications with their API keys, in id order (applications.manage)." })
  async applications(@Ctx() context: ConsoleContext): Promise<ConsoleApplicationType[]> {
    const { accountId } = staffCaller(context);
    const [applications, keys] = await Promise.all([listApplications(context.database.db, accountId), listKeys(context.database.db, accountId)]);
    return applications.map((application) => ({
      id: application.id,
      name: application.name,
      plan: application.plan,
      createdAt: application.createdAt,
      keys: keys.filter((key) => key.applicationId === application.id).map(toKey),
    }));
  }

  @Authorized<ConsoleRule>('applications.manage')
  @Query(() => [ConsoleApiKeyType], { description: "The account's global keys (usage only, at most one live), oldest first (applications.manage)." })
  async globalApiKeys(@Ctx() context: ConsoleContext): Promise<ConsoleApiKeyType[]> {
    const keys = await listKeys(context.database.db, staffCaller(context).accountId);
    return keys.filter((key) => key.applicationId === null).map(toKey);
  }

  @Authorized<ConsoleRule>('applications.manage')
  @Mutation(() => CreatedApiKeyType, { description: 'A new API key for an application of the account, answered once (applications.manage); its other keys stay live.' })
  async createApiKey(@Ctx() context: ConsoleContext, @Arg('applicationId', () => ID) applicationId: string): Promise<CreatedApiKeyType> {
    const id = idOf(applicationId, 'applicationId', 'the id of an application of the account');
    const created = await createAccountApplicationKey(context.database.db, staffCaller(context).accountId, id, context.audit);
    return { id: created.keyId, applicationId: created.application.id, prefix: created.prefix, key: created.apiKey };
  }

  @Authorized<ConsoleRule>('applications.manage')
  @Mutation(() => Boolean, { description: 'Revokes an API key of the account at once (applications.manage): true, or false when it was revoked already.' })
  async revokeApiKey(@Ctx() context: ConsoleContext, @Arg('keyId', () => ID) keyId: string): Promise<boolean> {
    const id = idOf(keyId, 'keyId', 'the id of an API key of the account');
    return revokeAccountApiKey(context.database.db, staffCaller(context).accountId, id, context.audit);
  }
}

function toKey(key: KeyRow): ConsoleApiKeyType {
  return { id: key.id, prefix: key.prefix, createdAt: key.createdAt, revokedAt: key.revokedAt, live: key.revokedAt === null };
}

function idOf(value: string, param: string, expected: string): number {
  const id = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!isId(id)) throw invalidParameter(param, expected);
  return id;
}
