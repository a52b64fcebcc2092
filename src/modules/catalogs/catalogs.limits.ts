/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give). */

/**
 * Free-form JSON of a catalog row: a capability's manifest, a dataset's
 * origin. Every list of public artifacts carries them for each row (up to
 * 200 a page), so they stay within MAX_REPLY_BYTES together.
 */
export const MAX_MANIFEST_BYTES = 128 * 1024;
export const MAX_ORIGIN_BYTES = 16 * 1024;

/** Tags (and languages, task categories, a capability's keywords): at most MAX_TAGS of at most MAX_TAG_LENGTH characters each. */
export const MAX_TAGS = 100;
export const MAX_TAG_LENGTH = 100;
export const MAX_TASK_SET_MEMBERS = 10_000;
export const MAX_CAPABILITY_FILES = 2000;
export const MAX_DATASET_FILES = 2000;

/** A task judge's rubric and system prompt, and a task's verification script (characters). */
export const MAX_JUDGE_TEXT = 20_000;
export const MAX_VERIFICATION_SCRIPT = 100_000;
