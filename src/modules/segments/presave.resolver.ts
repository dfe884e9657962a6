import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { requiredId } from '../brands/brands.resolver.js';
import * as presave from './presave.service.js';
import type { PresaveRunner } from './presave.service.js';
import { PresaveInput, PresaveJob } from './presave.types.js';

function runnerOf(context: Context): PresaveRunner {
  return { db: context.database.db, cipher: context.identity.cipher, networks: context.identity.networks, log: context.log };
}

@Resolver(() => PresaveJob)
export class PresaveResolver {
  @Authorized('advanced')
  @Mutation(() => PresaveJob, { description: "Starts a background job saving the track or album to the libraries of the segment's opted-in members." })
  async presaveToSegment(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('segmentId', () => ID, { description: 'A list segment of the account (not a FILTER segment).' }) segmentId: string,
    @Arg('input', () => PresaveInput, { description: 'The track or album, on Spotify, Deezer or both.' }) input: PresaveInput,
  ): Promise<PresaveJob> {
    const job = await presave.createPresave({ db: context.database.db, accountId: caller.accountId, applicationId: caller.applicationId }, requiredId(segmentId, 'segmentId'), input);
    // Read before the run starts: begun meanwhile, it showed its first results beside the job still queued.
    const answer = await presave.readJob(context.database.db, job);
    presave.runInBackground(runnerOf(context), caller.accountId, job.id);
    return answer;
  }

  @Authorized('advanced')
  @Mutation(() => PresaveJob, { description: 'Runs a finished job again: failed members are tried again; nobody is saved twice.' })
  async retryPresaveJob(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('segmentId', () => ID, { description: "The job's segment." }) segmentId: string,
    @Arg('id', () => ID, { description: 'The job; one being run is a conflict unless its run started over 15 minutes ago.' }) id: string,
  ): Promise<PresaveJob> {
    const job = await presave.requireJob(context.database.db, caller.accountId, requiredId(segmentId, 'segmentId'), requiredId(id));
    const queued = await presave.requeue(context.database.db, job);
    const answer = await presave.readJob(context.database.db, queued);
    presave.runInBackground(runnerOf(context), caller.accountId, job.id);
    return answer;
  }

  @Authorized()
  @Query(() => PresaveJob, { nullable: true, description: 'A presave job of the segment, with its per-member results.' })
  async presaveJob(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('segmentId', () => ID, { description: "The job's segment." }) segmentId: string,
    @Arg('id', () => ID, { description: "The job's id." }) id: string,
  ): Promise<PresaveJob> {
    const job = await presave.requireJob(context.database.db, caller.accountId, requiredId(segmentId, 'segmentId'), requiredId(id));
    return presave.readJob(context.database.db, job);
  }
}
