/** A dataset's format when its publisher names none (a module of its own: the inputs and the types both read it when loaded). */
export const DEFAULT_DATASET_FORMAT = 'parquet';
