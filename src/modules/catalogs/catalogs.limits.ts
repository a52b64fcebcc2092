/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give). */

export const MAX_TAGS = 100;
export const MAX_TASK_SET_MEMBERS = 10_000;
export const MAX_CAPABILITY_FILES = 2000;
export const MAX_DATASET_FILES = 2000;
