import type { UserRecord } from '../../../models';
import { requireViewer, type AppContext } from '../../core/context';

/** The authenticated caller's account. */
export function currentUser(ctx: AppContext): UserRecord {
  return requireViewer(ctx).user;
}
