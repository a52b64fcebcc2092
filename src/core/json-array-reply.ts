/**
 * A REST reply that is a JSON array whose elements PostgreSQL sends one row
 * each (the engine's answer to a list root): the HTTP layer writes them as they arrive
 * (http/respond.ts sendJsonArray) instead of waiting for the whole text, so
 * a large list is on the wire while PostgreSQL still reads it.
 */
export class JsonArrayReply {
  /**
   * `each` calls `element` with every element's JSON text, in order, and
   * resolves once the last was given. Its tenant checks and lookups run
   * before the reply is made: only the rows themselves come from `each`.
   */
  constructor(readonly each: (element: (json: string) => void) => Promise<void>) {}
}
