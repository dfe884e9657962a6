import { declareNetwork } from '../../declaration.js';

/** Beats Music closed in 2015: old identities still sign in, but nothing can be checked with it. */
export const beatsmusic = declareNetwork({
  id: 'beatsmusic',
  name: 'Beats Music',
  identities: 'retired',
});
