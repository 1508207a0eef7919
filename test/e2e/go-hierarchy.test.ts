/**
 * get_type_info, get_call_hierarchy and get_type_hierarchy on Go (test/fixtures/go-calls: an
 * interface embedding another, two implementations, one through a pointer receiver, a call chain
 * across three packages into the standard library, a method in another file than its type),
 * checked against a raw gopls asked the same questions beside the tool, and against the fixture's
 * anchored text. gopls v0.23.0 offers hover, signature help, call and type hierarchies (measured),
 * so all three tools answer; were one missing, the tool would say `not_supported` naming gopls,
 * which the capability check below asserts instead of an answer.
 * Skipped, with the reason printed, when gopls is not installed.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  Hover,
  MarkupContent,
  SignatureHelp,
  TypeHierarchyItem,
} from "vscode-languageserver-protocol";
import { goAdapter } from "../../language-servers/go.js";
import { uriToPath } from "../../src/lsp/uri.js";
import { lineOf, position } from "../helpers/anchors.js";
import { copyFixture, readText, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { type RawServer, rawServer } from "../helpers/raw-server.js";
import { goplsMissing } from "../helpers/servers.js";

const skip = goplsMissing();
if (skip) process.stdout.write(`# SKIP go hierarchy e2e: ${skip}\n`);

interface Place {
  relative_path?: string;
  name_path: string | null;
  line?: number;
  outside?: true;
  depth: number;
  via?: string;
}
interface Call extends Place {
  sites: number[];
}
interface CallResult {
  symbol: { name_path: string };
  incoming?: Call[];
  outgoing?: Call[];
  stopped?: string[];
  complete: boolean;
}
interface HierarchyResult {
  symbol: { name_path: string };
  supertypes?: Place[];
  subtypes?: Place[];
  stopped?: string[];
  complete: boolean;
}
interface TypeInfo {
  line: number;
  column: number;
  symbol: string | null;
  type_info: string;
  signature?: string;
  complete: boolean;
}

/** The Go toolchain's root: standard-library items live there, a host path no answer may show. */
function goroot(): string {
  const r = spawnSync("go", ["env", "GOROOT"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "";
}

describe("get_type_info / get_call_hierarchy / get_type_hierarchy (e2e, gopls)", {
  skip: skip ?? false,
}, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let raw: RawServer;
  const text: Record<string, string> = {};

  /** Where a raw item is, as the tool names it: project-relative path and 1-based line. */
  const placeOfRaw = (item: CallHierarchyItem | TypeHierarchyItem) => {
    const path = uriToPath(item.uri);
    return path.startsWith(`${fx.dir}/`)
      ? `${item.name} ${path.slice(fx.dir.length + 1)}:${item.selectionRange.start.line + 1}`
      : `${item.name} (outside)`;
  };
  /** The same for the tool's entries: the last segment of the name path is the server's name. */
  const placeOfTool = (p: Place) =>
    p.outside ? `${p.name_path} (outside)` : `${p.name_path?.split("/").at(-1)} ${p.relative_path}:${p.line}`;

  const at = async (rel: string, anchor: string) => raw.at(rel, position(text[rel]!, anchor));

  async function rawHover(rel: string, anchor: string): Promise<string> {
    const hover = await raw.session.request<Hover | null>("textDocument/hover", await at(rel, anchor));
    return (hover?.contents as MarkupContent | undefined)?.value ?? "";
  }

  /** The raw server's calls, level by level, each item expanded once (as the tool promises). */
  async function rawCalls(rel: string, anchor: string, dir: "incoming" | "outgoing", depth: number) {
    const roots =
      (await raw.session.request<CallHierarchyItem[] | null>(
        "textDocument/prepareCallHierarchy",
        await at(rel, anchor),
      )) ?? [];
    const key = (i: CallHierarchyItem) =>
      `${i.uri}#${i.selectionRange.start.line}:${i.selectionRange.start.character}`;
    const seen = new Set(roots.map(key));
    const out: string[] = [];
    let level = roots;
    for (let d = 1; d <= depth; d++) {
      const next: CallHierarchyItem[] = [];
      for (const item of level) {
        const calls =
          dir === "incoming"
            ? await raw.session.request<CallHierarchyIncomingCall[] | null>("callHierarchy/incomingCalls", {
                item,
              })
            : await raw.session.request<CallHierarchyOutgoingCall[] | null>("callHierarchy/outgoingCalls", {
                item,
              });
        for (const c of calls ?? []) {
          const other = "from" in c ? c.from : c.to;
          const sites = [...new Set(c.fromRanges.map((r) => r.start.line + 1))].sort((a, b) => a - b);
          out.push(`${d} ${placeOfRaw(other)} @${sites.join(",")}`);
          if (!seen.has(key(other)) && uriToPath(other.uri).startsWith(`${fx.dir}/`)) {
            seen.add(key(other));
            next.push(other);
          }
        }
      }
      level = next;
    }
    return out.sort();
  }
  const toolCalls = (calls: Call[] | undefined) =>
    (calls ?? []).map((c) => `${c.depth} ${placeOfTool(c)} @${c.sites.join(",")}`).sort();

  async function rawTypes(rel: string, anchor: string, dir: "supertypes" | "subtypes"): Promise<string[]> {
    const [item] =
      (await raw.session.request<TypeHierarchyItem[] | null>(
        "textDocument/prepareTypeHierarchy",
        await at(rel, anchor),
      )) ?? [];
    assert.ok(item, `gopls prepares a type hierarchy item at ${anchor}`);
    const types = await raw.session.request<TypeHierarchyItem[] | null>(`typeHierarchy/${dir}`, { item });
    return (types ?? []).map(placeOfRaw).sort();
  }

  before(async () => {
    fx = await copyFixture("go-calls");
    for (const rel of ["store/store.go", "ledger/ledger.go", "ledger/remind.go", "cmd/app/main.go"]) {
      text[rel] = await readText(fx.dir, rel);
    }
    [h, raw] = await Promise.all([startScalpel({ project: fx.dir }), rawServer(goAdapter, fx.dir)]);
  });
  after(async () => {
    await raw?.close();
    await h?.close();
    await fx?.cleanup();
  });

  it("gopls offers what the three tools ask for", () => {
    const caps = raw.session.capabilities;
    assert.equal(raw.session.serverInfo?.name, "gopls");
    for (const c of [
      "hoverProvider",
      "signatureHelpProvider",
      "callHierarchyProvider",
      "typeHierarchyProvider",
    ]) {
      assert.ok(caps[c as keyof typeof caps], `${c}: without it the tool answers not_supported naming gopls`);
    }
  });

  it("get_type_info: the hover's code and the doc comment, without markdown, links or host paths", async () => {
    const store = text["store/store.go"]!;
    // Order/Total: its signature (the raw hover's fence) and its doc comment, the example kept as code.
    const md = await rawHover("store/store.go", "Total() int {");
    const code = /```go\n([^`]*)\n```/.exec(md)?.[1];
    assert.equal(code, "func (o *Order) Total() int");
    const total = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Order/Total",
      relative_path: "store/store.go",
    });
    assert.equal(total.symbol, "Order/Total");
    assert.deepEqual({ line: total.line, column: total.column }, position(store, "Total() int {"));
    assert.equal(
      total.type_info,
      `${code}\n\nTotal sums the prices of the order's lines:\n\n\tdue := order.Total()`,
      "the doc comment as written in the fixture, its indented example verbatim",
    );
    // A doc link: gopls links it to the declaring file; the tool keeps the word, never the path.
    assert.match(await rawHover("store/store.go", "Price() int { return b"), /\[PerPage\]\(file:\/\//);
    const price = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Book/Price",
      relative_path: "store/store.go",
    });
    assert.equal(
      price.type_info,
      "func (b *Book) Price() int\n\nPrice of the book: its pages times PerPage.",
    );
    // A struct: its declaration and method set as gopls shows them, no fences or rules.
    const book = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Book",
      relative_path: "store/store.go",
    });
    assert.match(
      book.type_info,
      /^type Book struct \{.*\n\tTitle string\n\tPages int\n\}\n\nBook is sold by the page\.\n\n/,
    );
    assert.match(book.type_info, /\nfunc \(b Book\) Name\(\) string\nfunc \(b \*Book\) Price\(\) int$/);
    for (const r of [total, price, book]) {
      assert.doesNotMatch(r.type_info, /```|^---$|pkg\.go\.dev|file:/m);
    }
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("get_type_info by position: an inferred type, and the called signature inside an argument list", async () => {
    const sum = await callOk<TypeInfo>(h, "get_type_info", {
      relative_path: "store/store.go",
      ...position(text["store/store.go"]!, "sum := 0"),
    });
    assert.equal(
      sum.type_info,
      /```go\n([^`]*)\n```/.exec(await rawHover("store/store.go", "sum := 0"))?.[1],
    );
    assert.equal(sum.type_info, "var sum int");
    assert.equal(sum.symbol, "Order/Total", "gopls lists no locals: the holding method is named");
    // On `invoice` in ledger.Describe(invoice): the hover shows the variable, signature help the call.
    const help = await raw.session.request<SignatureHelp | null>(
      "textDocument/signatureHelp",
      await at("cmd/app/main.go", "invoice))"),
    );
    const sig = help?.signatures[0];
    assert.equal(sig?.label, "Describe(i ledger.Invoice) string");
    const arg = await callOk<TypeInfo>(h, "get_type_info", {
      relative_path: "cmd/app/main.go",
      ...position(text["cmd/app/main.go"]!, "invoice))"),
    });
    assert.equal(arg.type_info, "var invoice ledger.Invoice");
    assert.equal(arg.signature, `${sig?.label}\n\nDescribe says what is due.`);
    assert.equal(arg.symbol, "main");
    // On a method's name: the method, addressed through its receiver type.
    const due = await callOk<TypeInfo>(h, "get_type_info", {
      relative_path: "ledger/ledger.go",
      ...position(text["ledger/ledger.go"]!, "Due() int {"),
    });
    assert.equal(due.symbol, "Invoice/Due");
    assert.match(due.type_info, /^func \(i Invoice\) Due\(\) int\n\nDue is the order's total plus tax\.$/);
  });

  it("get_call_hierarchy incoming: the raw server's callers to depth 3, methods through their receiver type", async () => {
    const ledger = text["ledger/ledger.go"]!;
    const main = text["cmd/app/main.go"]!;
    const one = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Order/Total",
      relative_path: "store/store.go",
    });
    assert.equal(one.symbol.name_path, "Order/Total");
    assert.deepEqual(
      toolCalls(one.incoming),
      await rawCalls("store/store.go", "Total() int {", "incoming", 1),
    );
    // Anchored: Invoice.Due (a value-receiver method) and main call it.
    assert.deepEqual(
      one.incoming?.map((c) => [c.name_path, c.relative_path, c.line, c.sites]).sort(),
      [
        [
          "Invoice/Due",
          "ledger/ledger.go",
          lineOf(ledger, "func (i Invoice) Due"),
          [lineOf(ledger, "i.Order.Total()")],
        ],
        ["main", "cmd/app/main.go", lineOf(main, "func main"), [lineOf(main, "order.Total()")]],
      ].sort(),
    );
    assert.match(
      one.stopped?.join("\n") ?? "",
      /^incoming: depth 1 reached; 2 symbols at depth 1 not followed; raise depth \(at most 3\)$/,
    );

    const three = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Order/Total",
      relative_path: "store/store.go",
      depth: 3,
    });
    assert.deepEqual(
      toolCalls(three.incoming),
      await rawCalls("store/store.go", "Total() int {", "incoming", 3),
    );
    // Each deeper caller names the symbol it reaches: ledger's Total and Describe call Invoice/Due,
    // and so does Invoice/Remind, a method in another file than its type; main calls Total and
    // Describe; main was listed at depth 1 already, so nothing is left unfollowed.
    assert.deepEqual(
      three.incoming
        ?.filter((c) => c.depth > 1)
        .map((c) => `${c.depth} ${c.name_path} via ${c.via}`)
        .sort(),
      [
        "2 Describe via Invoice/Due",
        "2 Invoice/Remind via Invoice/Due",
        "2 Total via Invoice/Due",
        "3 main via Describe",
        "3 main via Total",
      ],
    );
    assert.equal(three.stopped, undefined);
  });

  it("get_call_hierarchy outgoing: callees by name path, a standard-library callee by name only, cut-offs told", async () => {
    const ledger = text["ledger/ledger.go"]!;
    const out = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Describe",
      relative_path: "ledger/ledger.go",
      direction: "outgoing",
      depth: 2,
    });
    assert.equal(out.incoming, undefined);
    assert.deepEqual(
      toolCalls(out.outgoing),
      await rawCalls("ledger/ledger.go", "Describe(i Invoice)", "outgoing", 2),
    );
    const describe = lineOf(ledger, "fmt.Sprintf(");
    assert.deepEqual(
      out.outgoing?.map(
        (c) =>
          `${c.depth} ${c.name_path} ${c.relative_path ?? "-"}${c.via ? ` via ${c.via}` : ""} @${c.sites.join(",")}`,
      ),
      [
        `1 Invoice/Due ledger/ledger.go @${describe}`,
        `1 Sprintf - @${describe}`,
        `2 Order/Total store/store.go via Invoice/Due @${lineOf(ledger, "i.Order.Total()")}`,
      ],
    );
    assert.deepEqual(out.outgoing?.[1], { name_path: "Sprintf", outside: true, depth: 1, sites: [describe] });
    assert.match(
      out.stopped?.join("\n") ?? "",
      /^outgoing: depth 2 reached; 1 symbol at depth 2 not followed; raise depth/,
    );
    // A call through an interface reaches the interface's method, addressed through the interface.
    const dynamic = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Order/Total",
      relative_path: "store/store.go",
      direction: "outgoing",
    });
    assert.deepEqual(
      dynamic.outgoing?.map((c) => [c.name_path, c.line]),
      [["Priced/Price", lineOf(text["store/store.go"]!, "Price() int\n}")]],
    );
    const rendered = await h.call<CallResult>("get_call_hierarchy", {
      name_path: "main",
      relative_path: "cmd/app/main.go",
      direction: "outgoing",
      max_items: 2,
    });
    assert.equal(rendered.isError, false, rendered.text);
    assert.equal(rendered.structured.outgoing?.length, 2);
    assert.match(rendered.text, /stopped: outgoing: max_items=2 reached at depth 1; raise max_items/);
    const all = await h.call("get_call_hierarchy", {
      name_path: "main",
      relative_path: "cmd/app/main.go",
      direction: "outgoing",
    });
    assert.match(all.text, /Println \(outside the project\) called by main at /);
    const root = goroot();
    assert.ok(root !== "");
    for (const r of [rendered, all]) {
      assert.ok(!`${r.text}${JSON.stringify(r.structured)}`.includes(root), "no path into GOROOT");
    }
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("a symbol gopls cannot root a hierarchy at is refused with gopls's reason, not answered with nothing", async () => {
    const onType = await h.call("get_call_hierarchy", { name_path: "Book", relative_path: "store/store.go" });
    assert.equal(onType.isError, true, onType.text);
    assert.equal(
      onType.text,
      'Error (invalid_argument): gopls has no call hierarchy for Book (Struct): "Book is not a function". Give the name path of a function or method.',
    );
    const onMethod = await h.call("get_type_hierarchy", {
      name_path: "Order/Total",
      relative_path: "store/store.go",
    });
    assert.match(
      onMethod.text,
      /^Error \(invalid_argument\): gopls has no type hierarchy for Order\/Total \(Method\): "not a type name"\. Give the name path of a class, interface, struct or trait\.$/,
    );
  });

  it("get_type_hierarchy: interfaces and the concrete types that satisfy them, as the raw server lists them", async () => {
    const store = text["store/store.go"]!;
    const priced = await callOk<HierarchyResult>(h, "get_type_hierarchy", {
      name_path: "Priced",
      relative_path: "store/store.go",
    });
    assert.deepEqual(
      (priced.supertypes ?? []).map(placeOfTool).sort(),
      await rawTypes("store/store.go", "Priced interface", "supertypes"),
    );
    assert.deepEqual(
      (priced.subtypes ?? []).map(placeOfTool).sort(),
      await rawTypes("store/store.go", "Priced interface", "subtypes"),
    );
    // Anchored: Priced embeds Named; Book (through its pointer receiver's Price) and Pen satisfy it.
    assert.deepEqual(
      priced.supertypes?.map((t) => [t.name_path, t.line]),
      [["Named", lineOf(store, "Named interface")]],
    );
    assert.deepEqual(priced.subtypes?.map((t) => [t.name_path, t.line]).sort(), [
      ["Book", lineOf(store, "Book struct")],
      ["Pen", lineOf(store, "Pen struct")],
    ]);
    // Two levels up from Book: Named and Priced, then Priced's own supertype Named again, via Priced.
    const book = await callOk<HierarchyResult>(h, "get_type_hierarchy", {
      name_path: "Book",
      relative_path: "store/store.go",
      direction: "supertypes",
      depth: 2,
    });
    assert.equal(book.subtypes, undefined);
    assert.deepEqual(
      book.supertypes?.map((t) => `${t.depth} ${t.name_path}${t.via ? ` via ${t.via}` : ""}`).sort(),
      ["1 Named", "1 Priced", "2 Named via Priced"],
    );
    assert.equal(book.stopped, undefined, "Named has no supertypes: nothing left");
    // Named is satisfied by standard-library types too: listed by name only, no host path.
    // `/Named`: the interface itself, not Priced's embedded `Named` (gopls lists it as a field).
    const named = await h.call<HierarchyResult>("get_type_hierarchy", {
      name_path: "/Named",
      relative_path: "store/store.go",
      direction: "subtypes",
    });
    assert.equal(named.isError, false, named.text);
    assert.deepEqual(
      (named.structured.subtypes ?? []).map(placeOfTool).sort(),
      await rawTypes("store/store.go", "Named interface", "subtypes"),
    );
    const inProject = (named.structured.subtypes ?? []).filter((t) => !t.outside).map((t) => t.name_path);
    assert.deepEqual(inProject.sort(), ["Book", "Pen", "Priced"]);
    assert.ok(!`${named.text}${JSON.stringify(named.structured)}`.includes(goroot()), "no path into GOROOT");
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
