/**
 * A bounded least-recently-used map: at most `maxEntries` entries and at
 * most `maxBytes` bytes, as the caller sizes each entry when it sets it. A
 * Map keeps insertion order, so its first key is the least recently used
 * one; get and set move a key to the end. Every cache of the router is one
 * of these, so no cache a client can fill grows without bound.
 */
export interface LruLimits {
  maxEntries: number;
  /** The sum of the sizes given to set; unbounded when omitted. */
  maxBytes?: number;
}

interface Slot<V> {
  value: V;
  bytes: number;
}

export class Lru<K, V> {
  private readonly slots = new Map<K, Slot<V>>();
  private totalBytes = 0;

  constructor(private readonly limits: LruLimits) {
    if (!(limits.maxEntries >= 1)) throw new Error(`an LRU needs maxEntries >= 1; got ${limits.maxEntries}`);
  }

  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /** Keeps `value` as the most recently used entry; one larger than the whole byte budget is not kept (false). */
  set(key: K, value: V, bytes = 0): boolean {
    this.delete(key);
    if (bytes > (this.limits.maxBytes ?? Infinity)) return false;
    this.slots.set(key, { value, bytes });
    this.totalBytes += bytes;
    this.evict();
    return true;
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (!slot) return false;
    this.slots.delete(key);
    this.totalBytes -= slot.bytes;
    return true;
  }

  get size(): number {
    return this.slots.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  private evict(): void {
    const maxBytes = this.limits.maxBytes ?? Infinity;
    for (const [key, slot] of this.slots) {
      if (this.slots.size <= this.limits.maxEntries && this.totalBytes <= maxBytes) break;
      this.slots.delete(key);
      this.totalBytes -= slot.bytes;
    }
  }
}
