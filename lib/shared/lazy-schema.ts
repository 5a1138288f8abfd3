// The MCP SDK defines about two thousand zod schemas when its modules load; a backend worker uses
// a few dozen (the messages of one client connection) and each worker holds its own copies (about
// 5 MB of closures, contexts and shapes per worker: benchmarks/README.md, "cost per backend"); a
// hub uses a few hundred. In the backend and hub bundles (not the sources tests run),
// scripts/bundle-workers.mjs wraps each top-level schema definition of the SDK's modules in
// lazySchema(): the schema is built the first time anything touches it. The stand-in forwards
// every operation to the built schema, so the SDK works with it as with the schema itself; only
// identity differs (the stand-in is not the built object), which the SDK does not rely on.
/** `make`, called once, on the first read. */
function once<T>(make: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= make());
}

export function lazySchema<T extends object>(make: () => T): T {
  const real = once(make);
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(real(), key, real()),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // A proxy may not report a property as non-configurable that its (empty) target lacks.
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/**
 * The same for a collection the SDK derives from schemas when its module loads (a `Set` of the
 * keys of an elicitation schema's shape): built, and its schemas with it, on first use. Its
 * methods run on the built collection, whose internal slots the stand-in does not have.
 */
export function lazyCollection<T extends object>(make: () => T): T {
  const real = once(make);
  return new Proxy({} as T, {
    get: (_target, key) => {
      const target = real();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (_target, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
