import type { UserModel } from '../../../models';
import { requireViewer, type AppContext } from '../../core/context';

/** The authenticated caller's account. */
export function currentUser(ctx: AppContext): UserModel {
  return requireViewer(ctx).user;
}
