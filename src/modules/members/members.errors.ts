import { AppError } from '../../core/errors';

/** Accepting an invitation would take the organization past its member limit (decisions.md §3: 409). */
export class MemberLimitExceededError extends AppError {
  constructor(limit: number) {
    super(409, 'member_limit_exceeded_error', `The organization has reached its member limit (${limit})`);
  }
}
