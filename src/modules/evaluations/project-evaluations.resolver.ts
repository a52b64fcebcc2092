import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import { ChildLimit } from '../../core/graphql-decorators';
import type { AppContext } from '../../core/context';
import { ProjectResponse } from '../projects/projects.types';
import { toEvaluation } from './evaluations.mapper';
import { EvaluationJobResponse } from './evaluations.types';

/** `project.evaluations` (GraphQL only): the evaluations module owns the data, so it adds the field. */
@Resolver(() => ProjectResponse)
export class ProjectEvaluationsResolver {
  @FieldResolver(() => [EvaluationJobResponse], { description: 'The evaluations of the project, newest first.' })
  @Extensions({ graphqlOnly: true })
  async evaluations(
    @Root() project: ProjectResponse,
    @ChildLimit(20) limit: number,
    @Ctx() ctx: AppContext,
  ): Promise<EvaluationJobResponse[]> {
    const rows = await ctx.loaders.projectEvaluations.load({ parent_id: project.id, limit });
    return rows.map(toEvaluation);
  }
}
