import { ChatIntegrationModel } from '../../../models';
import { resolveWholeOrg, requireScope } from '../../core/tenancy/tenant-scope';
import type { AppContext } from '../../core/context';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import type { ChatSettingsUpdateInput } from './chat-integration.inputs';

/**
 * The chat integration of an organization. The row is created lazily by the
 * first settings write; until then reads answer the defaults (never cached,
 * so a write applies to the next read and the next event).
 */
export async function getChatIntegration(ctx: AppContext, orgKey: string): Promise<ChatIntegrationModel> {
  // Any member reads it (reads need no scope: a read-only API key can read too), but not a key limited to one workspace.
  const access = await resolveWholeOrg(ctx, orgKey);
  const row = await ChatIntegrationModel.findOne({ where: { organization_id: access.org.id } });
  return row ?? ChatIntegrationModel.build({ organization_id: access.org.id });
}

export async function updateChatSettings(ctx: AppContext, orgKey: string, input: ChatSettingsUpdateInput): Promise<ChatIntegrationModel> {
  const access = await resolveWholeOrg(ctx, orgKey);
  requireScope(access, 'integrations:manage');
  const changes: Partial<Pick<ChatIntegrationModel, 'follow_ups' | 'shared_channels' | 'thread_detail'>> = {};
  if (input.follow_ups != null) changes.follow_ups = input.follow_ups;
  if (input.shared_channels != null) changes.shared_channels = input.shared_channels;
  if (input.thread_detail != null) changes.thread_detail = input.thread_detail;
  return database().transaction(async (transaction) => {
    // Insert-if-missing is race free through the unique organization_id.
    await plainQuery('INSERT INTO chat_integrations (organization_id) VALUES ($org) ON CONFLICT (organization_id) DO NOTHING', { org: access.org.id }, { transaction });
    const row = await ChatIntegrationModel.findOne({ where: { organization_id: access.org.id }, transaction, lock: transaction.LOCK.UPDATE });
    if (Object.keys(changes).length) await row!.update(changes, { transaction });
    return row!;
  });
}
