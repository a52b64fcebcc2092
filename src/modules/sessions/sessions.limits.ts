/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give or ask for). */

/** Messages one transcript append may carry. */
export const MAX_APPEND_MESSAGES = 1000;

/** Tool calls one message may carry. */
export const MAX_MESSAGE_TOOL_CALLS = 1000;

/** A page of transcript messages (a transcript read, a session read's events): at most, and when no `limit` is given. */
export const MAX_TRANSCRIPT_PAGE = 1000;
export const DEFAULT_TRANSCRIPT_PAGE = 100;
