import type { ChatIntegrationModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { ChatConnectionResponse } from './chat-integration.types';

/** Row (or unsaved defaults) → connection reply: its declared fields, and the connecting user's id its connected_by resolver reads. */
export function toChatConnection(row: ChatIntegrationModel): ChatConnectionResponse {
  return Object.assign(fromRow(ChatConnectionResponse, row), { connected_by_user_id: row.connected_by ?? null });
}
