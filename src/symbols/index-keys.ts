/**
 * The index key of each adapter: known before its server starts (launch settings and the version
 * its probe reads), so a restart finds its entries while the server is still loading.
 */
import type { LanguageAdapter } from "../languages/adapter.js";
import { serverKey } from "./index-store.js";

/** A probe that takes longer does not hold up symbols: the key is made without its version. */
const probeWaitMs = 5000;

export class IndexKeys {
  private readonly keys = new Map<string, Promise<string | null>>();
  private readonly resolved = new Map<string, string | null>();

  constructor(private readonly root: string) {}

  /** The key of `adapter`; null when its server cannot be started (nothing is indexed for it). */
  of(adapter: LanguageAdapter): Promise<string | null> {
    let key = this.keys.get(adapter.id);
    if (!key) {
      key = this.compute(adapter);
      this.keys.set(adapter.id, key);
    }
    return key;
  }

  /** The key of an adapter once computed (no waiting). */
  known(adapterId: string): string | null | undefined {
    return this.resolved.get(adapterId);
  }

  private async compute(adapter: LanguageAdapter): Promise<string | null> {
    const spec = adapter.spec(this.root);
    if ("missing" in spec) return null;
    const version = await Promise.race([
      adapter.probe(this.root).then(
        (p) => p.version,
        () => undefined,
      ),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), probeWaitMs).unref()),
    ]);
    const k = serverKey({
      adapter: adapter.id,
      version,
      settings: [
        spec.launch,
        spec.initializationOptions ?? null,
        spec.didChangeConfigurationSettings ?? null,
      ],
    });
    this.resolved.set(adapter.id, k);
    return k;
  }
}
