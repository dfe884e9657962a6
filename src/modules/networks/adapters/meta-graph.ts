import { at, refusedByStatus, type Classifier } from '../http.js';

/**
 * Facebook and Instagram Graph APIs answer a bad token with HTTP 400 and an `OAuthException`
 * (code 190); throttling (codes 4, 17, 32, 613) is a passing unavailability.
 */
export const graphFailure: Classifier = (status, body) => {
  const code = at(body, 'error.code');
  if (code === 4 || code === 17 || code === 32 || code === 613) return 'unreachable';
  if (code === 190 || code === 102 || at(body, 'error.type') === 'OAuthException') return 'invalid_credentials';
  return refusedByStatus(status, body);
};
