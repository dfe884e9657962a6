import escapeHtml from 'escape-html';

/** Markup that is already safe: made by the `html` tag, never from raw input. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What a page interpolates: text and numbers (escaped), `html` output, lists of them; nothing for false, null and undefined. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Tagged template for pages: every interpolated value is HTML-escaped (text and attribute values
 * alike, quotes included) unless it is itself `html` output, so nesting composes and input never
 * becomes markup.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  return new Html(strings.reduce((out, text, index) => out + render(values[index - 1]) + text));
}
