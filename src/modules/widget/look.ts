import { AppError, invalidParameter } from '../../core/errors.js';
import type { Executor } from '../../db/client.js';
import type { SignInPageLook } from '../../db/schema/index.js';
import { listWhitelist } from '../tenancy/tenancy.queries.js';
import { domainNotWhitelisted } from './widget.service.js';

/**
 * The hosted pages' look per application: a title, two colours, a logo and a footer link
 * (docs/widget.md, "The pages' look"). Values are checked when set and again when a page is drawn,
 * so a stored value that does not pass (written by hand, or a domain since unwhitelisted) is left out.
 */

export const defaultAccentColor = '#3b2db5';
export const defaultBackgroundColor = '#f3f4f7';
export const defaultFooterLinkText = 'Privacy policy';
export const titleMaxLength = 80;
export const footerLinkTextMaxLength = 60;
const urlMaxLength = 2000;
const colourPattern = /^#[0-9a-f]{6}$/;
const controlCharacter = /\p{Cc}/u; // U+0000–U+001F and U+007F–U+009F

/** What the API and the CLI send; unset or empty values return to the default. */
export interface LookInput {
  title?: string | null;
  accentColor?: string | null;
  backgroundColor?: string | null;
  logoUrl?: string | null;
  footerLinkUrl?: string | null;
  footerLinkText?: string | null;
}

/** The look a page is drawn with: every value present, the text colours computed. */
export interface PageLook {
  title: string;
  accentColor: string;
  /** Black or white, whichever reads better on the accent (buttons). */
  accentTextColor: string;
  /** The accent where it reads on the white card at 4.5:1, the body text colour otherwise. */
  linkColor: string;
  backgroundColor: string;
  /** Black or white, whichever reads better on the background (the footer link). */
  backgroundTextColor: string;
  logoUrl?: string;
  footerLink?: { url: string; text: string };
}

const given = (value: string | null | undefined): string | undefined => (value === null || value === undefined || value.trim() === '' ? undefined : value);

function readColour(value: string, param: string): string {
  const colour = value.trim().toLowerCase();
  if (!colourPattern.test(colour)) throw invalidParameter(param, 'a colour written #rrggbb, such as #3b2db5');
  return colour;
}

function readText(value: string, param: string, max: number): string {
  const text = value.trim();
  if (text.length > max || controlCharacter.test(text)) throw invalidParameter(param, `text of at most ${max} characters, without control characters`);
  return text;
}

/** An https URL, without credentials; its host is checked against the whitelist separately. */
function httpsUrl(value: string): URL | undefined {
  if (value.length > urlMaxLength || controlCharacter.test(value)) return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' && !url.username && !url.password ? url : undefined;
  } catch {
    return undefined;
  }
}

function readUrl(value: string, param: string, whitelist: string[], what: string): string {
  const url = httpsUrl(value);
  if (!url) throw invalidParameter(param, `an https URL of at most ${urlMaxLength} characters`);
  if (!whitelist.includes(url.hostname.toLowerCase())) throw domainNotWhitelisted(what, param);
  return url.toString();
}

/**
 * Checks every value of a new look before anything is written; the whole look replaces the old one.
 * Refusals name the input's field (`input.accentColor`), code 4, or code 16 for a URL off the whitelist.
 */
export async function readLook(db: Executor, app: { accountId: number; applicationId: number }, input: LookInput): Promise<SignInPageLook> {
  const look: SignInPageLook = {};
  const title = given(input.title);
  if (title !== undefined) look.title = readText(title, 'input.title', titleMaxLength);
  const accent = given(input.accentColor);
  if (accent !== undefined) look.accentColor = readColour(accent, 'input.accentColor');
  const background = given(input.backgroundColor);
  if (background !== undefined) look.backgroundColor = readColour(background, 'input.backgroundColor');
  const logo = given(input.logoUrl);
  const footer = given(input.footerLinkUrl);
  const footerText = given(input.footerLinkText);
  if (footerText !== undefined) {
    if (footer === undefined) throw new AppError('INVALID_PARAMETER', "The parameter 'input.footerLinkText' is invalid: give footerLinkUrl with it.", 'input.footerLinkText');
    look.footerLinkText = readText(footerText, 'input.footerLinkText', footerLinkTextMaxLength);
  }
  if (logo !== undefined || footer !== undefined) {
    const whitelist = await listWhitelist(db, app.accountId, app.applicationId);
    if (logo !== undefined) look.logoUrl = readUrl(logo, 'input.logoUrl', whitelist, 'The logo URL');
    if (footer !== undefined) look.footerLinkUrl = readUrl(footer, 'input.footerLinkUrl', whitelist, 'The footer link');
  }
  return look;
}

/** WCAG 2 relative luminance of `#rrggbb`. */
function luminance(colour: string): number {
  const channel = (index: number) => {
    const value = parseInt(colour.slice(1 + index * 2, 3 + index * 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white on a colour: whichever contrasts more (always at least 4.58:1). */
export function readableTextOn(colour: string): string {
  return contrastRatio(colour, '#ffffff') >= contrastRatio(colour, '#000000') ? '#ffffff' : '#000000';
}

const bodyTextColor = '#1b1b1f';

/**
 * The look a page is drawn with. `whitelist`, when given, is the application's current one: a logo
 * or link whose domain has left it is not shown. A stored value that fails its check is ignored.
 */
export function pageLook(stored: SignInPageLook | undefined, applicationName: string, whitelist?: string[]): PageLook {
  const colour = (value: string | undefined, fallback: string) => (typeof value === 'string' && colourPattern.test(value) ? value : fallback);
  const allowed = (value: string | undefined) => {
    const url = typeof value === 'string' ? httpsUrl(value) : undefined;
    return url && (!whitelist || whitelist.includes(url.hostname.toLowerCase())) ? url.toString() : undefined;
  };
  const text = (value: string | undefined, max: number) => (typeof value === 'string' && value.trim() && value.length <= max && !controlCharacter.test(value) ? value : undefined);
  const accentColor = colour(stored?.accentColor, defaultAccentColor);
  const backgroundColor = colour(stored?.backgroundColor, defaultBackgroundColor);
  const footerUrl = allowed(stored?.footerLinkUrl);
  return {
    title: text(stored?.title, titleMaxLength) ?? applicationName,
    accentColor,
    accentTextColor: readableTextOn(accentColor),
    linkColor: contrastRatio(accentColor, '#ffffff') >= 4.5 ? accentColor : bodyTextColor,
    backgroundColor,
    backgroundTextColor: readableTextOn(backgroundColor),
    logoUrl: allowed(stored?.logoUrl),
    footerLink: footerUrl ? { url: footerUrl, text: text(stored?.footerLinkText, footerLinkTextMaxLength) ?? defaultFooterLinkText } : undefined,
  };
}

/** The look as the API and the CLI show it: the stored values that apply, each default filled in, absent ones null. */
export function shownLook(stored: SignInPageLook | undefined, applicationName: string) {
  const look = pageLook(stored, applicationName);
  return {
    title: look.title,
    accentColor: look.accentColor,
    accentTextColor: look.accentTextColor,
    backgroundColor: look.backgroundColor,
    logoUrl: look.logoUrl ?? null,
    footerLinkUrl: look.footerLink?.url ?? null,
    footerLinkText: look.footerLink?.text ?? null,
  };
}

/** The look of an application's hosted pages, with its current whitelist. */
export async function hostedPageLook(db: Executor, application: { id: number; accountId: number; name: string; settings: { signInPageLook?: SignInPageLook } }): Promise<PageLook> {
  const stored = application.settings.signInPageLook;
  const whitelist = stored?.logoUrl || stored?.footerLinkUrl ? await listWhitelist(db, application.accountId, application.id) : [];
  return pageLook(stored, application.name, whitelist);
}

/** The look's custom properties, from colours that passed the pattern only (styles.ts reads them). */
export function lookProperties(look: PageLook): string {
  const values = [look.accentColor, look.accentTextColor, look.linkColor, look.backgroundColor, look.backgroundTextColor];
  if (!values.every((value) => colourPattern.test(value))) throw new Error('a colour of the look failed its pattern');
  return `:root{--accent:${look.accentColor};--on-accent:${look.accentTextColor};--link:${look.linkColor};--page:${look.backgroundColor};--on-page:${look.backgroundTextColor}}`;
}
