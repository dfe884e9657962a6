import { Field, InputType, ObjectType } from 'type-graphql';

@ObjectType('EmailTemplate', { description: 'A subject and a plain-text body; placeholders: {{link}}, {{application}}, {{email}}, {{username}}, {{firstName}}, {{expires}}.' })
export class EmailTemplateType {
  @Field(() => String) subject!: string;
  @Field(() => String) body!: string;
}

@ObjectType('EmailSettings', { description: "The emails this application's fans get (the defaults where none is set)." })
export class EmailSettingsType {
  @Field(() => String, { description: "The sender's name; the address is the deployment's MAIL_FROM." }) senderName!: string;
  @Field(() => EmailTemplateType) verifyEmail!: EmailTemplateType;
  @Field(() => EmailTemplateType) resetPassword!: EmailTemplateType;
}

@InputType('EmailTemplateInput')
export class EmailTemplateInput {
  @Field(() => String, { description: 'At most 200 characters.' }) subject!: string;
  @Field(() => String, { description: 'Plain text, at most 5,000 characters; must contain {{link}}.' }) body!: string;
}

@InputType('EmailSettingsInput', { description: 'Replaces the email settings; what is left out returns to the default.' })
export class EmailSettingsInput {
  @Field(() => String, { nullable: true, description: "At most 100 characters; the application's name by default." }) senderName?: string | null;
  @Field(() => EmailTemplateInput, { nullable: true }) verifyEmail?: EmailTemplateInput | null;
  @Field(() => EmailTemplateInput, { nullable: true }) resetPassword?: EmailTemplateInput | null;
}
