import { Field, InputType, ObjectType } from 'type-graphql';

@ObjectType('EmailTemplate', {
  description:
    'A subject and a plain-text body; placeholders: {{link}}, {{application}}, {{email}}, {{firstName}} (one line of letters, at most 40 characters, or nothing), {{expires}}; {{username}}, kept for old templates, says the first name or the address, never the username.',
})
export class EmailTemplateType {
  @Field(() => String, { description: 'The subject line, placeholders unfilled.' }) subject!: string;
  @Field(() => String, { description: 'The plain-text body, placeholders unfilled.' }) body!: string;
}

@ObjectType('EmailSettings', { description: "The emails this application's fans get (the defaults where none is set)." })
export class EmailSettingsType {
  @Field(() => String, { description: "The sender's name; the address is the deployment's MAIL_FROM." }) senderName!: string;
  @Field(() => EmailTemplateType, { description: "The verification email: a link that confirms the member's address (valid 72 hours)." }) verifyEmail!: EmailTemplateType;
  @Field(() => EmailTemplateType, { description: 'The password-reset email: a link to a page that sets a new password (valid 1 hour).' }) resetPassword!: EmailTemplateType;
}

@InputType('EmailTemplateInput', {
  description:
    'A subject and a plain-text body; placeholders: {{link}}, {{application}}, {{email}}, {{firstName}} (one line of letters, at most 40 characters, or nothing), {{expires}}; {{username}}, kept for old templates, says the first name or the address, never the username.',
})
export class EmailTemplateInput {
  @Field(() => String, { description: 'At most 200 characters.' }) subject!: string;
  @Field(() => String, { description: 'Plain text, at most 5,000 characters; must contain {{link}}.' }) body!: string;
}

@InputType('EmailSettingsInput', { description: 'Replaces the email settings; what is left out returns to the default.' })
export class EmailSettingsInput {
  @Field(() => String, { nullable: true, description: "At most 100 characters; the application's name by default." }) senderName?: string | null;
  @Field(() => EmailTemplateInput, { nullable: true, description: 'The verification email; left out, the default.' }) verifyEmail?: EmailTemplateInput | null;
  @Field(() => EmailTemplateInput, { nullable: true, description: 'The password-reset email; left out, the default.' }) resetPassword?: EmailTemplateInput | null;
}
