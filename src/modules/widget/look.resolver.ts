import { Arg, Authorized, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { recordSettingsChange } from '../audit/audit.js';
import { getApplication, toApplication } from '../tenancy/tenancy.service.js';
import { Application } from '../tenancy/tenancy.types.js';
import { readLook, shownLook } from './look.js';
import { SignInPageLookInput, SignInPageLookType } from './look.types.js';
import { mergeApplicationSettings } from './widget.queries.js';

/** The hosted pages' look per application (look.ts), beside the emails' settings (email.resolver.ts). */
@Resolver(() => Application)
export class SignInPageLookResolver {
  @FieldResolver(() => SignInPageLookType, { description: "The hosted sign-in pages' title, colours, logo and footer link." })
  async signInPageLook(@Root() application: Application, @Ctx() context: Context): Promise<SignInPageLookType> {
    const stored = (await context.loaders.widget.settings.load(application.id)).signInPageLook;
    return shownLook(stored, application.name);
  }

  @Authorized()
  @Mutation(() => Application, { description: 'Sets the look of the hosted sign-in pages (docs/widget.md, "The pages\' look"); every value is checked before anything is written.' })
  async setSignInPageLook(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => SignInPageLookInput, { description: 'The whole look; what is left out returns to the default.' }) input: SignInPageLookInput,
  ): Promise<Application> {
    const app = { accountId: caller.accountId, applicationId: caller.applicationId };
    const signInPageLook = await readLook(context.database.db, app, input);
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, { signInPageLook });
    await recordSettingsChange(context, caller, 'signInPageLook');
    context.loaders.widget.settings.clear(caller.applicationId);
    return toApplication(await getApplication(context.database.db, caller.accountId, caller.applicationId));
  }
}
