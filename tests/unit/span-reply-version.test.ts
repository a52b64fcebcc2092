import crypto from 'node:crypto';
import { SPAN_REPLY_VERSION, spanReplyJson } from '../../src/modules/assessments/assessments.sql';

/**
 * Attack spans store their reply text with SPAN_REPLY_VERSION; a stored text
 * is served only while the version matches. This pins the shape's SQL to its
 * version: changing spanReplyJson fails here until SPAN_REPLY_VERSION is
 * bumped (and the pair below updated), so old texts are never served stale.
 */
it('pins the span reply shape to its version', () => {
  const shape = crypto.createHash('sha256').update(spanReplyJson('s')).digest('hex');
  expect({ version: SPAN_REPLY_VERSION, shape }).toEqual({ version: 1, shape: 'b9bb9d2e09cb9d51d50d2a23dd5fc2671760aee13ab58c7f68f7e324f98fa68d' });
});
