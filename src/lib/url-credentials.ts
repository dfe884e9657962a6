/**
 * Credentials that travel in URLs, defined once: the log redacts them (logger.ts) and the links and
 * redirects the gateway builds drop them from the return URLs they carry (widget.service.ts,
 * widget.emails.ts). A page's own address is what the widget sends as its return URL, and right
 * after a sign-in that address holds the sign-in token (`?accesstoken=`): copied into a link, it
 * would go into an email and into every log that sees the link.
 */

/**
 * Parameter names whose values are credentials, lower case (a URL's parameters match in any case):
 * the gateway's own (API keys, access and sign-in tokens, the emailed links' `token`, passwords,
 * network tokens and secrets) and OAuth's (authorization codes, access, refresh and ID tokens,
 * client secrets). `state` is not one: it guards a flow, it does not open one.
 */
export const credentialParameters: ReadonlySet<string> = new Set([
  'apikey',
  'api_key',
  'accesstoken',
  'access_token',
  'token',
  'password',
  'authtoken',
  'authsecret',
  'code',
  'refresh_token',
  'id_token',
  'client_secret',
]);

/** How deep a value is decoded to look for URLs inside URLs (`?return=https%3A%2F%2F…%3Faccesstoken%3D…`). */
export const nestedUrlDepth = 4;

export function isCredentialParameter(name: string): boolean {
  return credentialParameters.has(name.toLowerCase());
}

/** What to do with a parameter: keep it, replace its value (`[redacted]`), or drop it. */
type Policy = 'redact' | 'remove';

/**
 * The URL as a log line may show it: the values of credential parameters replaced, at the top
 * level and inside parameter values that are themselves URLs or parameters (percent-encoded once or
 * more), to `nestedUrlDepth` levels. Names are decoded first, as the query parser decodes them
 * before the parameters are read (`api%4Bey` is read as `apiKey`).
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  return `${url.slice(0, start + 1)}${scrubParameters(url.slice(start + 1), nestedUrlDepth, 'redact')}`;
}

/**
 * The URL without its credential parameters: those of its query and of a fragment of parameters
 * (`#access_token=…`) are dropped, and those nested in its parameters' values (a return URL of its
 * own) are dropped from those values. For every return URL a link or a redirect carries.
 */
export function withoutCredentials(url: URL): URL {
  const clean = new URL(url);
  if (clean.search) {
    const query = scrubParameters(clean.search.slice(1), nestedUrlDepth, 'remove');
    clean.search = query ? `?${query}` : '';
  }
  if (clean.hash.includes('=')) {
    const fragment = scrubParameters(clean.hash.slice(1), nestedUrlDepth, 'remove');
    clean.hash = fragment ? `#${fragment}` : '';
  }
  return clean;
}

/** `a=1&b=2` with the policy applied to credentials; other values are searched `depth` levels down. */
function scrubParameters(query: string, depth: number, policy: Policy): string {
  const pairs: string[] = [];
  for (const pair of query.split('&')) {
    const split = pair.indexOf('=');
    const name = split < 0 ? pair : pair.slice(0, split);
    if (isCredentialParameter(decoded(name))) {
      if (policy === 'redact') pairs.push(split < 0 ? pair : `${name}=[redacted]`);
      continue;
    }
    if (split < 0 || depth === 0) {
      pairs.push(pair);
      continue;
    }
    const raw = pair.slice(split + 1);
    const value = decoded(raw);
    const scrubbed = scrubNested(value, depth - 1, policy);
    pairs.push(scrubbed === value ? pair : `${name}=${encodeURIComponent(scrubbed)}`);
  }
  return pairs.join('&');
}

/**
 * A decoded parameter value: a URL (its query and fragment are parameters), parameters themselves
 * (`a=1&accesstoken=…`), or text encoded once more, decoded again while depth remains.
 */
function scrubNested(value: string, depth: number, policy: Policy): string {
  const hash = value.indexOf('#');
  const head = hash < 0 ? value : value.slice(0, hash);
  const fragment = hash < 0 ? undefined : value.slice(hash + 1);
  const query = head.indexOf('?');
  let scrubbedHead = head;
  if (query >= 0) {
    scrubbedHead = `${head.slice(0, query + 1)}${scrubParameters(head.slice(query + 1), depth, policy)}`;
  } else if (head.includes('=')) {
    scrubbedHead = scrubParameters(head, depth, policy);
  } else if (depth > 0 && head.includes('%')) {
    const again = decoded(head);
    const scrubbed = again === head ? head : scrubNested(again, depth - 1, policy);
    if (scrubbed !== again) scrubbedHead = encodeURIComponent(scrubbed);
  }
  const scrubbedFragment = fragment?.includes('=') ? scrubParameters(fragment, depth, policy) : fragment;
  return scrubbedFragment === undefined ? scrubbedHead : `${scrubbedHead}#${scrubbedFragment}`;
}

function decoded(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape: the parser keeps such text as it is, and so does this.
    return spaced;
  }
}
