import 'reflect-metadata';
import { replyVersionOf, spanReplyJson, spanReplyVersion } from '../../src/modules/assessments/assessments.sql';

/**
 * Attack spans store their reply text with the version of its shape; a
 * stored text of another version is rebuilt when read. The version is
 * derived from the reply's SQL (the fields' @Sql declarations), so changing
 * a declaration changes it with no edit anywhere else.
 */
it('derives the stored reply version from the reply SQL, so any change of shape changes it', () => {
  const version = spanReplyVersion();
  expect(version).toBe(replyVersionOf(spanReplyJson('s')));
  expect(version).toBeGreaterThanOrEqual(1);
  expect(version).toBeLessThanOrEqual(32768);
  // A field added to the shape (here, by hand) gives another version.
  const changed = spanReplyJson('s').replace('AS "transforms"', 'AS "transforms", s.created_at AS "created_at"');
  expect(changed).not.toBe(spanReplyJson('s'));
  expect(replyVersionOf(changed)).not.toBe(version);
});
