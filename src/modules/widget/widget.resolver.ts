import { Arg, Authorized, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { SignInNetworkSettings } from '../../db/schema/index.js';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { recordSettingsChange } from '../audit/audit.js';
import { invalidParameter } from '../../core/errors.js';
import { toMember } from '../members/members.mapping.js';
import { memberByAccessToken, requireMember } from '../members/members.service.js';
import { Member } from '../members/members.types.js';
import { displayName, externalNetworks, type ExternalNetwork } from '../networks/networks.js';
import { getApplication, toApplication } from '../tenancy/tenancy.service.js';
import { Application } from '../tenancy/tenancy.types.js';
import { discoverProvider } from './widget.oauth.js';
import { readRequiredFields, requiredFieldsOf, SignInProfileField } from './widget.profile.js';
import { checkAuthorizationEndpoint, checkIssuer } from './sign-in-providers.js';
import { mergeApplicationSettings } from './widget.queries.js';
import { exchangeSignInToken } from './widget.service.js';
import { SignInErrorsMode, SignInLink, SignInNetworkInput, WidgetScript } from './widget.types.js';
import { widgetUrls } from './widget.urls.js';

function urlsOf(context: Context, application: Application) {
  return widgetUrls(context.widget?.baseUrl ?? '', application.id);
}

async function reloadApplication(context: Context, caller: ApplicationCaller): Promise<Application> {
  return toApplication(await getApplication(context.database.db, caller.accountId, caller.applicationId));
}

function httpUrl(value: string | undefined, param: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value.trim());
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.toString();
  } catch {
    /* reported below */
  }
  throw invalidParameter(param, 'expected an http:// or https:// URL');
}

@Resolver(() => Application)
export class WidgetResolver {
  @FieldResolver(() => String, { description: 'The hosted sign-in page of this application; add `return` (a whitelisted page) to come back to it with a sign-in token.' })
  loginUrl(@Root() application: Application, @Ctx() context: Context): string {
    return urlsOf(context, application).login;
  }

  @FieldResolver(() => String, { description: 'The hosted registration page of this application; add `return` (a whitelisted page) to come back to it with a sign-in token.' })
  registerUrl(@Root() application: Application, @Ctx() context: Context): string {
    return urlsOf(context, application).register;
  }

  @FieldResolver(() => String, { description: 'Ends the widget session; add `return` to come back to a whitelisted page.' })
  logoutUrl(@Root() application: Application, @Ctx() context: Context): string {
    return urlsOf(context, application).logout;
  }

  @FieldResolver(() => WidgetScript, { description: "The application's sign-in widget script." })
  widget(@Root() application: Application, @Ctx() context: Context): WidgetScript {
    return { url: urlsOf(context, application).script };
  }

  @FieldResolver(() => [SignInLink], { description: 'Email, then one link per network configured for social sign-in.' })
  async signInLinks(@Root() application: Application, @Ctx() context: Context): Promise<SignInLink[]> {
    const urls = urlsOf(context, application);
    const settings = await context.loaders.widget.settings.load(application.id);
    const networks = Object.keys(settings.signInNetworks ?? {}).sort() as ExternalNetwork[];
    return [{ network: 'email', name: displayName('email'), url: urls.login }, ...networks.map((network) => ({ network, name: displayName(network), url: urls.network(network) }))];
  }

  @FieldResolver(() => [SignInProfileField], { description: 'Profile fields the hosted flow asks for once a fan has signed in.' })
  async requiredFields(@Root() application: Application, @Ctx() context: Context): Promise<SignInProfileField[]> {
    return requiredFieldsOf((await context.loaders.widget.settings.load(application.id)).requiredFields);
  }

  @Authorized('advanced')
  @Mutation(() => Application, { description: 'Sets up (or replaces) social sign-in with one network for the hosted flow.' })
  async configureSignInNetwork(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => SignInNetworkInput, { description: "The network and the provider's client." }) input: SignInNetworkInput,
  ): Promise<Application> {
    const network = input.network.trim().toLowerCase();
    if (!(externalNetworks as readonly string[]).includes(network)) {
      throw invalidParameter('network', `expected one of ${externalNetworks.join(', ')}`);
    }
    if (!input.clientId.trim()) throw invalidParameter('clientId', 'expected the client id the provider issued');
    if (!input.clientSecret) throw invalidParameter('clientSecret', 'expected the client secret the provider issued');
    // Kept exactly as given: id tokens must name the issuer character for character.
    const issuer = input.issuer.trim();
    httpUrl(issuer, 'issuer');
    const allowHttp = context.widget?.allowHttpProviders ?? false;
    // Before the issuer is called for its discovery document.
    const providers = { anyOrigin: allowHttp };
    checkIssuer(network as ExternalNetwork, issuer, providers);
    let endpoints = {
      authorizationEndpoint: httpUrl(input.authorizationEndpoint, 'authorizationEndpoint'),
      tokenEndpoint: httpUrl(input.tokenEndpoint, 'tokenEndpoint'),
      userinfoEndpoint: httpUrl(input.userinfoEndpoint, 'userinfoEndpoint'),
      jwksUri: httpUrl(input.jwksUri, 'jwksUri'),
    };
    if (!endpoints.authorizationEndpoint || !endpoints.tokenEndpoint || !endpoints.userinfoEndpoint) {
      const metadata = await discoverProvider(issuer, allowHttp).catch(() => {
        throw invalidParameter('issuer', 'the provider has no readable OpenID Connect discovery document; give the endpoints instead');
      });
      endpoints = {
        authorizationEndpoint: endpoints.authorizationEndpoint ?? metadata.authorization_endpoint,
        tokenEndpoint: endpoints.tokenEndpoint ?? metadata.token_endpoint,
        userinfoEndpoint: endpoints.userinfoEndpoint ?? metadata.userinfo_endpoint,
        jwksUri: endpoints.jwksUri ?? metadata.jwks_uri,
      };
    }
    if (!endpoints.authorizationEndpoint || !endpoints.tokenEndpoint || !endpoints.userinfoEndpoint) {
      throw invalidParameter('issuer', 'the provider does not name its authorization, token and user info endpoints');
    }
    if (!allowHttp && Object.values(endpoints).some((url) => url?.startsWith('http:'))) {
      throw invalidParameter('issuer', 'provider endpoints must use https in production');
    }
    checkAuthorizationEndpoint(network as ExternalNetwork, { issuer, authorizationEndpoint: endpoints.authorizationEndpoint }, providers);
    const entry: SignInNetworkSettings = {
      clientId: input.clientId.trim(),
      clientSecretSealed: context.identity.cipher.seal(input.clientSecret),
      issuer,
      authorizationEndpoint: endpoints.authorizationEndpoint,
      tokenEndpoint: endpoints.tokenEndpoint,
      userinfoEndpoint: endpoints.userinfoEndpoint,
      ...(endpoints.jwksUri ? { jwksUri: endpoints.jwksUri } : {}),
      scope: input.scope?.trim() || 'openid email profile',
    };
    const settings = await context.loaders.widget.settings.load(caller.applicationId);
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, {
      signInNetworks: { ...settings.signInNetworks, [network]: entry },
    });
    context.loaders.widget.settings.clear(caller.applicationId);
    await recordSettingsChange(context, caller, 'signInNetworks');
    return reloadApplication(context, caller);
  }

  @Authorized('advanced')
  @Mutation(() => Application, { description: 'Stops social sign-in with one network.' })
  async removeSignInNetwork(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('network', () => String, { description: 'The network identifier, such as google.' }) network: string,
  ): Promise<Application> {
    const { [network.trim().toLowerCase()]: _removed, ...rest } = (await context.loaders.widget.settings.load(caller.applicationId)).signInNetworks ?? {};
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, { signInNetworks: rest });
    await recordSettingsChange(context, caller, 'signInNetworks');
    context.loaders.widget.settings.clear(caller.applicationId);
    return reloadApplication(context, caller);
  }

  @Authorized('advanced')
  @Mutation(() => Application, { description: 'Profile fields the hosted flow asks fans for once they have signed in (an empty list asks none).' })
  async setRequiredFields(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('fields', () => [SignInProfileField], { description: 'The member fields the hosted flow asks for.' }) fields: SignInProfileField[],
  ): Promise<Application> {
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, { requiredFields: readRequiredFields(fields) });
    await recordSettingsChange(context, caller, 'requiredFields');
    context.loaders.widget.settings.clear(caller.applicationId);
    return reloadApplication(context, caller);
  }

  @FieldResolver(() => SignInErrorsMode, { description: 'How the on-page sign-in refuses an email and password: DISTINCT (13 or 18, the default) or UNIFORM (18 for both); setSignInErrors.' })
  async signInErrors(@Root() application: Application, @Ctx() context: Context): Promise<SignInErrorsMode> {
    const settings = await context.loaders.widget.settings.load(application.id);
    return settings.signInErrors === 'uniform' ? SignInErrorsMode.UNIFORM : SignInErrorsMode.DISTINCT;
  }

  @Authorized()
  @Mutation(() => Application, {
    description:
      'How the on-page sign-in refuses an email and password: DISTINCT answers 13 for an unknown address and 18 for a wrong password, as AE does ' +
      '(the 13s one address is given are bounded); UNIFORM answers 18 for both, so a page cannot learn which addresses are registered.',
  })
  async setSignInErrors(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('mode', () => SignInErrorsMode, { description: "DISTINCT or UNIFORM, for this application's on-page sign-ins from now on." }) mode: SignInErrorsMode,
  ): Promise<Application> {
    await mergeApplicationSettings(context.database.db, caller.accountId, caller.applicationId, { signInErrors: mode });
    await recordSettingsChange(context, caller, 'signInErrors');
    context.loaders.widget.settings.clear(caller.applicationId);
    return reloadApplication(context, caller);
  }

  @Authorized()
  @Mutation(() => Member, {
    description:
      "Answers the member of a sign-in token from the hosted flow's return URL (single use, short-lived; spent here) " + 'or of a member access token as the member envelope shows it (not spent).',
  })
  async exchangeSignInToken(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('accessToken', () => String, { description: 'The accesstoken of the return URL (a sign-in token, valid five minutes), or a member access token.' }) accessToken: string,
  ): Promise<Member> {
    const own = await memberByAccessToken(context.database.db, caller.accountId, accessToken);
    if (own) return toMember(own);
    const app = { accountId: caller.accountId, applicationId: caller.applicationId };
    const memberId = await exchangeSignInToken(context.database.db, app, accessToken);
    return toMember(await requireMember(context.database.db, caller.accountId, memberId));
  }
}
