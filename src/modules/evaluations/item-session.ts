import { Op } from 'sequelize';
import { SessionGroupModel, SessionModel } from '../../../models';
import type { AppContext } from '../../core/context';
import { NotFoundError } from '../../core/errors';
import { visibleWhere } from '../sessions/session.policy';
import { readTranscript } from '../sessions/transcript.service';
import type { TranscriptReadArgs } from '../sessions/sessions.inputs';
import { trajectoryOf, type TrajectoryFormat } from '../sessions/trajectory';
import { getItem } from './evaluations.service';

/**
 * An evaluation item's session (decisions §14): the newest session of the
 * item's `evaluation_item` session group, among the sessions the caller can
 * see (its own, or shared with the workspace, as for every session read).
 * The item is found first (404 for an unknown evaluation or item, across
 * tenants too); an item without a visible session is 404 too.
 */
async function itemSession(ctx: AppContext, org: string, ws: string, id: string, itemId: string): Promise<SessionModel> {
  const item = await getItem(ctx, org, ws, id, itemId);
  const groups = await SessionGroupModel.findAll({ attributes: ['id'], where: { evaluation_item_id: item.id, kind: 'evaluation_item', workspace_id: item.workspace_id } });
  const session = groups.length
    ? await SessionModel.findOne({
        where: { group_id: { [Op.in]: groups.map((group) => group.id) }, workspace_id: item.workspace_id, ...visibleWhere(ctx.viewer!.user.id) },
        order: [['created_at', 'DESC'], ['id', 'DESC']],
      })
    : null;
  if (!session) throw new NotFoundError('Evaluation item session');
  return session;
}

export async function itemTranscript(ctx: AppContext, org: string, ws: string, id: string, itemId: string, args: TranscriptReadArgs) {
  const session = await itemSession(ctx, org, ws, id, itemId);
  return readTranscript(ctx, org, ws, session.id, args);
}

export async function itemTrajectory(ctx: AppContext, org: string, ws: string, id: string, itemId: string, format: TrajectoryFormat, includeCompacted: boolean) {
  return trajectoryOf(ctx, await itemSession(ctx, org, ws, id, itemId), format, includeCompacted);
}
