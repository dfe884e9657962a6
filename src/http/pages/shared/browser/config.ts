/** The settings the server wrote into the page as JSON (a data block, so no inline script runs). */
export function readPageConfig<T>(): T {
  const block = document.getElementById('page-config');
  if (!block?.textContent) throw new Error('The page has no #page-config block.');
  return JSON.parse(block.textContent) as T;
}
