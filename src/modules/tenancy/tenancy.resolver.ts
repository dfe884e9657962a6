import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { recordSettingsChange } from '../audit/audit.js';
import { getApplication, listWhitelist, setApplicationFeature, setNetworkVerification, toApplication, unwhitelistDomain, whitelistDomain } from './tenancy.service.js';
import { Application, NetworkVerificationMode } from './tenancy.types.js';

async function loadApplication(context: Context, caller: ApplicationCaller): Promise<Application> {
  return toApplication(await getApplication(context.database.db, caller.accountId, caller.applicationId));
}

@Resolver(() => Application)
export class ApplicationResolver {
  @Authorized()
  @Query(() => Application, { description: 'The application of the calling API key: its plan, settings, whitelist and hosted sign-in URLs.' })
  application(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller): Promise<Application> {
    return loadApplication(context, caller);
  }

  @Authorized('advanced')
  @Mutation(() => Application, { description: 'Adds a domain (a host name or a URL) to the whitelist.' })
  async whitelistDomain(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('domain', () => String, { description: 'A host name or a URL; its host is whitelisted exactly (www. included).' }) domain: string,
  ): Promise<Application> {
    await whitelistDomain(context.database.db, caller.accountId, caller.applicationId, domain);
    await recordSettingsChange(context, caller, 'whitelist');
    return loadApplication(context, caller);
  }

  @Authorized('advanced')
  @Mutation(() => Application, { description: 'Removes a domain from the whitelist; not found when it is not on it.' })
  async unwhitelistDomain(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('domain', () => String, { description: 'A host name or a URL; its host, exactly as listed.' }) domain: string,
  ): Promise<Application> {
    await unwhitelistDomain(context.database.db, caller.accountId, caller.applicationId, domain);
    await recordSettingsChange(context, caller, 'whitelist');
    return loadApplication(context, caller);
  }

  @Authorized()
  @Mutation(() => Application, {
    description:
      'How network tokens given to registration and login are trusted: VERIFY checks each with its network (and a registration ' +
      'may then renew the stored tokens of an identity it proves); TRUST takes the application at its word.',
  })
  async setNetworkVerification(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('mode', () => NetworkVerificationMode, { description: "VERIFY or TRUST, for this application's calls from now on." }) mode: NetworkVerificationMode,
  ): Promise<Application> {
    await setNetworkVerification(context.database.db, caller, mode);
    await recordSettingsChange(context, caller, 'networkVerification');
    return loadApplication(context, caller);
  }

  @Authorized('enterprise')
  @Mutation(() => Application, {
    description: 'Switches custom fields on brands on or off for the application (enterprise): until then, custom fields on brand create and edit are refused (FEATURE_NOT_ENABLED).',
  })
  async setBrandCustomFields(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('enabled', () => Boolean, { description: 'true: brands take custom fields; false: they are refused again (stored fields stay and are still shown).' }) enabled: boolean,
  ): Promise<Application> {
    await setApplicationFeature(context.database.db, caller, 'brandCustomFields', enabled);
    await recordSettingsChange(context, caller, 'brandCustomFields');
    return loadApplication(context, caller);
  }

  @FieldResolver(() => [String], { description: 'Domains allowed to host the sign-in widget and receive its tokens.' })
  whitelist(@Root() application: Application, @Ctx() context: Context): Promise<string[]> {
    return listWhitelist(context.database.db, application.accountId, application.id);
  }
}
