import { declareNetwork } from '../../declaration.js';

/** Email and password: identities checked by password in the members module, so there is nothing to call. */
export const email = declareNetwork({
  id: 'email',
  name: 'Email',
  identities: 'register',
});
