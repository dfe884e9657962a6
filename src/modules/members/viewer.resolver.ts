import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { toMember } from './members.mapping.js';
import { endViewerSessions, updateViewer, viewerSessions } from './viewer.js';
import { ViewerEndSessionsPayload, ViewerSession, ViewerUpdateInput, ViewerUpdatePayload } from './viewer.types.js';

/**
 * What a member JWT does for its own member besides reading `viewer` (viewer.ts). Each field takes
 * the member role and refuses an API key; every other root field still refuses a member JWT.
 */
@Resolver()
export class ViewerResolver {
  @Authorized('member')
  @Mutation(() => ViewerUpdatePayload, {
    description:
      "With a member JWT: changes the signed-in member's own profile (the fields of ViewerUpdateInput, by memberUpdate's rules); every problem is a user error " +
      'at its path, and nothing is written when there is any. An API key is refused (WRONG_APPLICATION): it uses memberUpdate.',
  })
  async viewerUpdate(@Ctx() context: Context, @Arg('input', () => ViewerUpdateInput, { description: 'The fields to change.' }) input: ViewerUpdateInput): Promise<ViewerUpdatePayload> {
    const { result, userErrors } = await updateViewer(context, input);
    return { viewer: result && toMember(result), userErrors };
  }

  @Authorized('member')
  @Query(() => [ViewerSession], {
    description: "With a member JWT: the signed-in member's sign-in widget sessions on the account's applications, newest first (the latest 100), without their secrets.",
  })
  async viewerSessions(@Ctx() context: Context): Promise<ViewerSession[]> {
    return viewerSessions(context);
  }

  @Authorized('member')
  @Mutation(() => ViewerEndSessionsPayload, {
    description:
      'With a member JWT: ends one widget session of the signed-in member (id), or, without id, every session: widget sessions, unspent sign-in tokens and every ' +
      'member JWT, the one of this request included (signedOut true; it answers INVALID_TOKEN from then on).',
  })
  async viewerEndSessions(
    @Ctx() context: Context,
    @Arg('id', () => ID, { nullable: true, description: 'One session (ViewerSession.id); left out, all of them.' }) id: string | null,
  ): Promise<ViewerEndSessionsPayload> {
    const { result, userErrors } = await endViewerSessions(context, id);
    return { endedSessions: result?.endedSessions ?? [], signedOut: result?.signedOut ?? false, userErrors };
  }
}
