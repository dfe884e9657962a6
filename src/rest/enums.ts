import { ActivityType } from '../modules/activities/activity-types.js';
import { BrandType } from '../modules/brands/brand-types.js';

/**
 * A GraphQL enum whose TypeScript values are the interface's words (`BrandType.VIDEO_GAME` is
 * `'Video Game'`): a route sends the enum's name for a word it read, and answers the word for a
 * name it is given back, so `/v1.1` takes and answers exactly the words it always did.
 */
export function enumWords<Name extends string, Word extends string>(values: Record<Name, Word>) {
  const names = new Map<string, Name>(Object.entries<Word>(values).map(([name, word]) => [word, name as Name]));
  return {
    /** The GraphQL name of a word of the list. */
    name: (word: Word): Name => names.get(word)!,
    /** The word a GraphQL name stands for. */
    word: (name: Name): Word => values[name],
  };
}

/** A brand's `type` on create and edit: 'Video Game' is VIDEO_GAME. */
export const brandTypeWords = enumWords(BrandType);

/** An activity definition's `type`, and the type of a feed item or a statistics group: 'Listened' is LISTENED. */
export const activityTypeWords = enumWords(ActivityType);
