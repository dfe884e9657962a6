import { createRequire } from 'node:module';
import countries, { type LocaleData } from 'i18n-iso-countries';

// The English names of ISO 3166-1 from a maintained data package (registering twice is harmless:
// the statistics module loads the same locale).
countries.registerLocale(createRequire(import.meta.url)('i18n-iso-countries/langs/en.json') as LocaleData);

/** Every ISO 3166-1 country as the hosted pages list it: alpha-2 code and English name, sorted by name. */
export const countryOptions: readonly { code: string; name: string }[] = Object.entries(countries.getNames('en', { select: 'official' }))
  .map(([code, name]) => ({ code, name }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));
