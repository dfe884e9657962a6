import { memberShowAnswer } from '../modules/lifecycle/member-show-answer.js';
import { memberPageAnswer } from '../modules/scoring/listing-json.js';
import type { SqlAnswerPlanner } from './execution.js';

/**
 * The documents answered without their resolvers, for /graphql (CompiledDocuments) and the
 * `/v1.1` routes alike: the plain page of members by one statement that builds its JSON, and the
 * member show from its one statement's row. Each declines what it does not answer exactly.
 */
export const documentAnswers: readonly SqlAnswerPlanner[] = [memberPageAnswer, memberShowAnswer];
