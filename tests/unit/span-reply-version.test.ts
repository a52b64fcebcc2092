import 'reflect-metadata';
import { replyVersionOf, storedReplyJson, storedReplyVersion } from '../../src/core/graphql-sql/sql-fields';
import { AttackSpanResponse } from '../../src/modules/assessments/assessments.types';

/**
 * Attack spans store their reply text with the version of its shape; a
 * stored text of another version is rebuilt when read. The version is
 * derived from the reply's SQL (the fields' @Sql declarations), so changing
 * a declaration changes it with no edit anywhere else.
 */
it('derives the stored reply version from the reply SQL, so any change of shape changes it', () => {
  const version = storedReplyVersion(AttackSpanResponse);
  expect(version).toBe(replyVersionOf(storedReplyJson(AttackSpanResponse, 's')));
  expect(version).toBeGreaterThanOrEqual(1);
  expect(version).toBeLessThanOrEqual(32768);
  // A field added to the shape (here, by hand) gives another version.
  const changed = storedReplyJson(AttackSpanResponse, 's').replace('AS "transforms"', 'AS "transforms", s.created_at AS "created_at"');
  expect(changed).not.toBe(storedReplyJson(AttackSpanResponse, 's'));
  expect(replyVersionOf(changed)).not.toBe(version);
});
