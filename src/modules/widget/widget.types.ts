import { Field, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { SignInProfileField } from './widget.profile.js';

registerEnumType(SignInProfileField, {
  name: 'SignInProfileField',
  description: 'A profile field an application may require of fans signing in through the hosted flow (setRequiredFields).',
  valuesConfig: {
    FIRST_NAME: { description: 'First name.' },
    SURNAME: { description: 'Surname.' },
    USERNAME: { description: 'Username.' },
    BIRTH_DATE: { description: 'Date of birth.' },
    GENDER: { description: 'Gender (M, F or Other).' },
    CITY: { description: 'City.' },
    COUNTRY: { description: 'Country (ISO 3166-1 alpha-2).' },
    POST_CODE: { description: 'Post code.' },
  },
});

export enum SignInErrorsMode {
  DISTINCT = 'distinct',
  UNIFORM = 'uniform',
}
registerEnumType(SignInErrorsMode, {
  name: 'SignInErrors',
  description: 'How the on-page sign-in (`POST /framework/session/<application>/email`) refuses an email and password (docs/widget.md, "The on-page flow").',
  valuesConfig: {
    DISTINCT: { description: "AE's codes: 13 for an address no member has (each address may be told that 10 times in 15 minutes), 18 for a wrong password (the default)." },
    UNIFORM: { description: 'Code 18 for both, the same answer word for word after the same password check: the page cannot tell whether an address is registered.' },
  },
});

@ObjectType('SignInLink', { description: 'Where a fan signs in with one network (or email) through the hosted flow.' })
export class SignInLink {
  @Field(() => String, { description: 'Network identifier: email, google, facebook, …' }) network!: string;
  @Field(() => String, { description: 'How the network names itself: Email, Google, Facebook, …' }) name!: string;
  @Field(() => String, { description: 'The hosted page that starts sign-in with it (for email, the sign-in page).' }) url!: string;
}

@ObjectType('WidgetScript', { description: "The application's sign-in widget (REST Widget.URL)." })
export class WidgetScript {
  @Field(() => String, { description: 'The sign-in widget script of this application, for a script tag on a whitelisted page.' })
  url!: string;
}

@InputType('SignInNetworkInput', { description: 'An OAuth 2.0 / OpenID Connect client for social sign-in through the hosted flow.' })
export class SignInNetworkInput {
  @Field(() => String, { description: 'A network identifier of the register set, such as google or facebook.' }) network!: string;
  @Field(() => String, { description: 'The client id the provider issued.' }) clientId!: string;
  @Field(() => String, { description: 'Stored sealed; never shown again.' }) clientSecret!: string;
  @Field(() => String, { description: "The provider's issuer; its discovery document fills in the endpoints not given." }) issuer!: string;
  @Field(() => String, { nullable: true, description: "The provider's authorization endpoint; from the discovery document when left out." }) authorizationEndpoint?: string;
  @Field(() => String, { nullable: true, description: "The provider's token endpoint; from the discovery document when left out." }) tokenEndpoint?: string;
  @Field(() => String, { nullable: true, description: "The provider's user info endpoint; from the discovery document when left out." }) userinfoEndpoint?: string;
  @Field(() => String, { nullable: true, description: "The provider's key set, for its id tokens; from the discovery document when left out." }) jwksUri?: string;
  @Field(() => String, { nullable: true, description: "Scopes to ask for; 'openid email profile' by default." }) scope?: string;
}
