import DataLoader from 'dataloader';

/**
 * A by-id DataLoader whose primed values can also be read at once. A list
 * that already joined its rows' relations primes them (see primeSessionRow);
 * a field resolver then answers with `loadNow`, a value rather than a
 * promise, and graphql-js completes the whole subtree synchronously instead
 * of one promise per field and per object (a large share of the node CPU
 * of a 100-session dashboard; bench/README.md, requests). Keys it has not
 * been primed with load as usual.
 *
 * Same semantics as DataLoader: the first value primed for a key stays until
 * `clear` (prime does not overwrite), and an Error is never kept.
 */
export class PrimedLoader<V> extends DataLoader<string, V> {
  private readonly primed = new Map<string, V>();
  /** Keys loaded, or primed with an Error or a promise: DataLoader keeps what it has, so must this. */
  private readonly loaded = new Set<string>();

  override load(key: string): Promise<V> {
    if (!this.primed.has(key)) this.loaded.add(key);
    return super.load(key);
  }

  constructor(batch: DataLoader.BatchLoadFn<string, V>, options?: Pick<DataLoader.Options<string, V>, 'batch' | 'maxBatchSize' | 'batchScheduleFn' | 'name'>) {
    // Caching options (cache: false, cacheKeyFn, cacheMap) would make loadNow disagree with load: not offered.
    super(batch, options);
  }

  override prime(key: string, value: V | PromiseLike<V> | Error): this {
    const kept = this.primed.has(key) || this.loaded.has(key);
    if (!kept) {
      // DataLoader keeps the first thing primed, an Error or a promise included: loadNow must not answer a later value.
      if (value instanceof Error || isPromiseLike(value)) this.loaded.add(key);
      else this.primed.set(key, value);
    }
    return super.prime(key, value);
  }

  override clear(key: string): this {
    this.primed.delete(key);
    this.loaded.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.primed.clear();
    this.loaded.clear();
    return super.clearAll();
  }

  /** The primed value of `key` now, or the promise of loading it. */
  loadNow(key: string): V | Promise<V> {
    return this.primed.has(key) ? this.primed.get(key)! : this.load(key);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** `map` applied to a value now, or once a promise settles: a resolver stays synchronous when its input is. */
export function mapNow<T, R>(value: T | Promise<T>, map: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(map) : map(value);
}
