import { Field, InputType, ObjectType } from 'type-graphql';

@ObjectType('SignInPageLook', { description: 'How the hosted sign-in pages look for this application (the defaults where nothing is set); docs/widget.md, "The pages\' look".' })
export class SignInPageLookType {
  @Field(() => String, { description: "The name the pages show; the application's name by default." }) title!: string;
  @Field(() => String, { description: 'Buttons and links, #rrggbb.' }) accentColor!: string;
  @Field(() => String, { description: 'The text colour on buttons, black or white, computed for contrast with accentColor.' }) accentTextColor!: string;
  @Field(() => String, { description: 'The page around the form, #rrggbb.' }) backgroundColor!: string;
  @Field(() => String, { nullable: true, description: 'The logo shown above the form.' }) logoUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'A link below the form, such as the privacy policy.' }) footerLinkUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'The footer link\'s text ("Privacy policy" by default); null without a footer link.' }) footerLinkText!: string | null;
}

@InputType('SignInPageLookInput', { description: 'Replaces the look of the hosted pages; what is left out (or empty) returns to the default.' })
export class SignInPageLookInput {
  @Field(() => String, { nullable: true, description: "At most 80 characters; the application's name by default." }) title?: string | null;
  @Field(() => String, { nullable: true, description: '#rrggbb; the button text is black or white, whichever contrasts more.' }) accentColor?: string | null;
  @Field(() => String, { nullable: true, description: '#rrggbb.' }) backgroundColor?: string | null;
  @Field(() => String, { nullable: true, description: "An https URL on one of the application's whitelisted domains; shown at most 12rem wide and 4rem high." }) logoUrl?: string | null;
  @Field(() => String, { nullable: true, description: "An https URL on one of the application's whitelisted domains, linked below the form." }) footerLinkUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'At most 60 characters; "Privacy policy" by default. Only with footerLinkUrl.' }) footerLinkText?: string | null;
}
