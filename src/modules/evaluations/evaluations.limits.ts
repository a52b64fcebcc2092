/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give). */

/** Task names one evaluation may be created with. */
export const MAX_TASK_NAMES = 10_000;
