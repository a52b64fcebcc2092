import { mapNow, PrimedLoader } from '../../src/core/loaders/primed-loader';

/** The loader behind the synchronous relation fields: DataLoader's caching rules, primed values readable at once. */
describe('PrimedLoader', () => {
  const make = () => {
    const batches: string[][] = [];
    const loader = new PrimedLoader<string | null>(async (keys) => {
      batches.push([...keys]);
      return keys.map((key) => `loaded ${key}`);
    });
    return { loader, batches };
  };

  it('answers a primed key at once, and loads the others in one batch', async () => {
    const { loader, batches } = make();
    loader.prime('a', 'primed a');
    loader.prime('n', null);
    expect(loader.loadNow('a')).toBe('primed a');
    expect(loader.loadNow('n')).toBeNull();
    const later = [loader.loadNow('b'), loader.loadNow('c')];
    expect(later.every((value) => value instanceof Promise)).toBe(true);
    expect(await Promise.all(later)).toEqual(['loaded b', 'loaded c']);
    expect(batches).toEqual([['b', 'c']]);
    expect(await loader.load('a')).toBe('primed a');
  });

  it('keeps the first value of a key as DataLoader does: a later prime does not overwrite a primed or loaded one', async () => {
    const { loader } = make();
    loader.prime('a', 'first');
    loader.prime('a', 'second');
    expect(loader.loadNow('a')).toBe('first');
    expect(await loader.load('b')).toBe('loaded b');
    loader.prime('b', 'primed after loading');
    expect(await loader.loadNow('b')).toBe('loaded b');
    expect(await loader.load('b')).toBe('loaded b');
  });

  it('forgets on clear and clearAll, and never keeps an Error or a promise as a value', async () => {
    const { loader, batches } = make();
    loader.prime('a', 'primed');
    loader.clear('a');
    expect(await loader.loadNow('a')).toBe('loaded a');
    loader.clear('a');
    loader.prime('a', 'primed again');
    expect(loader.loadNow('a')).toBe('primed again');
    loader.clearAll();
    loader.prime('e', new Error('boom'));
    const failed = loader.loadNow('e');
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toThrow('boom');
    loader.prime('p', Promise.resolve('later'));
    expect(loader.loadNow('p')).toBeInstanceOf(Promise);
    expect(await loader.loadNow('p')).toBe('later');
    expect(batches).toEqual([['a']]);
  });

  it('keeps an Error or a promise primed first, as DataLoader does, even when a value is primed after it', async () => {
    const { loader } = make();
    loader.prime('e', new Error('first'));
    loader.prime('e', 'later value');
    const failed = loader.loadNow('e');
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toThrow('first');
    loader.prime('p', Promise.resolve('promised'));
    loader.prime('p', 'later value');
    expect(await loader.loadNow('p')).toBe('promised');
  });

  it('mapNow stays synchronous for a value and follows a promise', async () => {
    expect(mapNow(2, (value) => value * 3)).toBe(6);
    const mapped = mapNow(Promise.resolve(2), (value) => value * 3);
    expect(mapped).toBeInstanceOf(Promise);
    expect(await mapped).toBe(6);
  });
});
