/**
 * Symbols moved to another file: a top-level symbol removed from one changed file and one of the
 * same name and kind added to another, with the same declaration text. The added one is told as
 * `renamed` with `from` naming its old place (`path:name_path`); the removed one leaves its file's
 * list, and its users (asked about the base text: those still naming the old place, whose imports
 * now point at nothing) stay among the affected as `renamed`.
 */
import type { SymbolNode } from "../symbols/tree.js";
import { declarationText } from "./declaration-text.js";
import type { AffectedSymbol, ChangedEntry } from "./outcome.js";

type Item = ChangedEntry["symbols"][number];

interface Side {
  entry: ChangedEntry;
  item: Item;
  node: SymbolNode;
  whole: string;
}

export class MoveFinder {
  private readonly removed: Side[] = [];
  private readonly added: Side[] = [];

  /** Notes a file's top-level removed (base text) or added (work tree text) symbol. */
  note(entry: ChangedEntry, item: Item, node: SymbolNode, text: string): void {
    if (node.parent !== null || (item.change !== "removed" && item.change !== "added")) return;
    const side = { entry, item, node, whole: declarationText(text, node).whole };
    (item.change === "removed" ? this.removed : this.added).push(side);
  }

  /** Pairs them across files and rewrites the entries and the affected list in place. */
  pair(affected: AffectedSymbol[]): void {
    for (const to of this.added) {
      const i = this.removed.findIndex(
        (from) =>
          from.entry !== to.entry &&
          from.node.name === to.node.name &&
          from.node.kind === to.node.kind &&
          from.whole === to.whole,
      );
      const from = this.removed[i];
      if (from === undefined) continue;
      this.removed.splice(i, 1);
      to.item.change = "renamed";
      to.item.from = `${from.entry.relative_path}:${from.item.name_path}`;
      from.entry.symbols = from.entry.symbols.filter((s) => s !== from.item);
      for (const a of affected) {
        if (
          a.relative_path === from.entry.relative_path &&
          a.name_path === from.item.name_path &&
          a.reason === "removed"
        )
          a.reason = "renamed";
      }
    }
  }
}
