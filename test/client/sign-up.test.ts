import { describe, it } from 'vitest';

/**
 * Screen (e): a sign-up form. One answer must carry every field error (userErrors, each at its
 * input path, with its code), in HTTP 200, with nothing written; the document is
 * test/client/pending/sign-up.graphql until memberRegister is in the schema.
 */
describe('a sign-up form', () => {
  it.todo('memberRegister: a bad address, a short password and a bad birth date answer three user errors at once, HTTP 200, no member written');
  it.todo('memberRegister: a valid form answers the member and its session, no user error');
  it.todo('memberLogin: a wrong password is a user error in a 200 answer, never a 401 that a sign-out link would take for the page credentials');
});
