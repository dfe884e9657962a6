import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { recordSettingsChange } from '../audit/audit.js';
import { AppError } from '../../core/errors.js';
import type { EmailSettings } from '../../db/schema/index.js';
import { readSenderName, readTemplate, templateOf } from '../email/templates.js';
import { admitPasswordReset, completeEmailVerification, completePasswordReset, sendPasswordReset, sendVerificationEmail, type EmailScope } from '../lifecycle/member-emails.js';
import { envelope, memberId, scopeOf } from '../members/members.envelope.js';
import { MemberEnvelope } from '../members/members.types.js';
import { getApplication, toApplication } from '../tenancy/tenancy.service.js';
import { Application } from '../tenancy/tenancy.types.js';
import { EmailSettingsInput, EmailSettingsType } from './email.types.js';
import { emailScope } from './widget.emails.js';
import { mergeApplicationSettings } from './widget.queries.js';
import { domainNotWhitelisted, isWhitelisted } from './widget.service.js';

/**
 * Verification and password-reset emails through the API: an application's server asks for them
 * (its own forms), and completes a link on its own page if it likes; by default the links open
 * the hosted pages. The reset request answers the same for every well-formed address, as the
 * hosted pages do, though an application could look its members up anyway.
 */
@Resolver(() => Application)
export class EmailResolver {
  private async scope(context: Context, caller: ApplicationCaller, returnUrl?: string | null): Promise<EmailScope> {
    const baseUrl = context.widget?.baseUrl;
    if (!baseUrl) throw new AppError('INVALID_PARAMETER', 'The Host header names no host this gateway serves its pages on (PUBLIC_URL or ALLOWED_HOSTS).', 'host');
    const app = { accountId: caller.accountId, applicationId: caller.applicationId };
    if (returnUrl && !(await isWhitelisted(context.database.db, app, returnUrl))) throw domainNotWhitelisted('The return URL', 'returnUrl');
    const settings = await context.loaders.widget.settings.load(caller.applicationId);
    // The application's server asks for many fans from one address: only the per-address and per-member budgets apply.
    const base = { ...scopeOf(context, caller), settings, clientAddress: undefined };
    return emailScope(base, { id: caller.applicationId, name: caller.applicationName }, baseUrl, returnUrl ? new URL(returnUrl) : undefined);
  }

  @FieldResolver(() => EmailSettingsType, { description: 'The sender name and templates of verification and password-reset emails.' })
  async emailSettings(@Root() application: Application, @Ctx() context: Context): Promise<EmailSettingsType> {
    const settings = (await context.loaders.widget.settings.load(application.id)).email;
    return { senderName: settings?.senderName ?? application.name, verifyEmail: templateOf(settings, 'verifyEmail'), resetPassword: templateOf(settings, 'resetPassword') };
  }

  @Authorized()
  @Mutation(() => Application, { description: 'Sets the sender name and templates of the emails sent to fans (docs/members.md, "Emails").' })
  async setEmailSettings(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => EmailSettingsInput, { description: 'The sender name and templates; what is left out returns to the default.' }) input: EmailSettingsInput,
  ): Promise<Application> {
    const email: EmailSettings = {};
    const senderName = input.senderName ? readSenderName(input.senderName) : undefined;
    if (senderName) email.senderName = senderName;
    if (input.verifyEmail) email.verifyEmail = readTemplate(input.verifyEmail, 'verifyEmail');
    if (input.resetPassword) email.resetPassword = readTemplate(input.resetPassword, 'resetPassword');
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, { email });
    await recordSettingsChange(context, caller, 'email');
    context.loaders.widget.settings.clear(caller.applicationId);
    return toApplication(await getApplication(context.database.db, caller.accountId, caller.applicationId));
  }

  @Authorized()
  @Mutation(() => Boolean, {
    description:
      'Emails a link to choose a new password to the member who signs in with this address. Answers true for every well-formed address, registered or not; limited per address and per member (docs/members.md).',
  })
  async requestPasswordReset(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('email', () => String, { description: 'The address the member signs in with.' }) email: string,
    @Arg('returnUrl', () => String, { nullable: true, description: 'A whitelisted page the reset page offers to sign in and go back to.' }) returnUrl: string | null,
  ): Promise<boolean> {
    const scope = await this.scope(context, caller, returnUrl);
    await sendPasswordReset(scope, await admitPasswordReset(scope, email));
    return true;
  }

  @Authorized()
  @Mutation(() => Boolean, { description: "Emails the member a link that confirms the member's address; limited per address and per member." })
  async sendVerificationEmail(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member to send it to, at the member's email address." }) id: string,
    @Arg('returnUrl', () => String, { nullable: true, description: 'A whitelisted page the fan is sent to once the address is confirmed.' }) returnUrl: string | null,
  ): Promise<boolean> {
    await sendVerificationEmail(await this.scope(context, caller, returnUrl), memberId(id));
    return true;
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description: "Sets a new password with an emailed reset link's token (single use): the member's other sessions end and the access token is renewed.",
  })
  async completePasswordReset(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('token', () => String, { description: 'The token of the reset link (<id>.<secret>); valid 1 hour, once.' }) token: string,
    @Arg('password', () => String, { description: 'The new password: 8 to 1024 characters, taken exactly as sent.' }) password: string,
  ): Promise<MemberEnvelope> {
    const member = await completePasswordReset(await this.scope(context, caller), token, password);
    return envelope(context, caller, { member, created: false });
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description: "Confirms the member's address with an emailed verification link's token (single use). An address another member holds answers EMAIL_IN_USE (1111) and leaves the link unspent.",
  })
  async completeEmailVerification(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('token', () => String, { description: 'The token of the verification link (<id>.<secret>); valid 72 hours, once.' }) token: string,
  ): Promise<MemberEnvelope> {
    const member = await completeEmailVerification(await this.scope(context, caller), token);
    return envelope(context, caller, { member, created: false });
  }
}
