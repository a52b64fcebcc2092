import type { ChatIntegrationModel } from '../../../models';
import {
  ChatConnectionStatus,
  ChatFollowUps,
  ChatSharedChannels,
  ChatThreadDetail,
  type ChatConnectionResponse,
} from './chat-integration.types';

/** Row (or unsaved defaults) → connection reply. connected_by resolves through a loader. */
export function toChatConnection(row: ChatIntegrationModel): ChatConnectionResponse {
  return {
    status: row.status as ChatConnectionStatus,
    bot_handle: row.bot_handle,
    bot_user_id: row.bot_user_id,
    team_id: row.team_id,
    team_name: row.team_name,
    team_url: row.team_url,
    connected_at: row.connected_at ?? null,
    disconnected_at: row.disconnected_at ?? null,
    last_event_at: row.last_event_at ?? null,
    connected_by_user_id: row.connected_by ?? null,
    disconnect_reason: row.disconnect_reason ?? null,
    masked_credentials: row.masked_credentials ?? {},
    settings: {
      follow_ups: row.follow_ups as ChatFollowUps,
      shared_channels: row.shared_channels as ChatSharedChannels,
      thread_detail: row.thread_detail as ChatThreadDetail,
    },
  };
}
