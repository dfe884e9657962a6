import { declareNetwork } from '../../declaration.js';

/** Rdio closed in 2015: old identities still sign in, but nothing can be checked with it. */
export const rdio = declareNetwork({
  id: 'rdio',
  name: 'Rdio',
  identities: 'retired',
});
