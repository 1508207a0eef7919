/**
 * Ground truth from the TypeScript compiler itself (the `typescript` dependency, the same version
 * tsserver runs): a LanguageService over the working copy's tsconfig answers references, rename
 * locations, implementations and navigation trees; a Program answers diagnostics.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";

export interface Site {
  file: string;
  line: number;
}

export class Truth {
  private readonly parsed: ts.ParsedCommandLine;
  private readonly service: ts.LanguageService;
  private readonly texts = new Map<string, string>();

  constructor(readonly root: string) {
    const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
    if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
    this.parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => this.parsed.options,
      getScriptFileNames: () => this.parsed.fileNames,
      getScriptVersion: () => "1",
      getScriptSnapshot: (f) => {
        const text = this.text(f);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => root,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    this.service = ts.createLanguageService(host);
  }

  private text(abs: string): string | undefined {
    let t = this.texts.get(abs);
    if (t === undefined) {
      try {
        t = readFileSync(abs, "utf8");
      } catch {
        return undefined;
      }
      this.texts.set(abs, t);
    }
    return t;
  }

  rel(abs: string): string {
    return relative(this.root, abs).split(sep).join("/");
  }

  private abs(rel: string): string {
    return join(this.root, rel);
  }

  private sourceFile(rel: string): ts.SourceFile {
    const sf = this.service.getProgram()?.getSourceFile(this.abs(rel));
    if (!sf) throw new Error(`${rel} is not in the program of ${this.rel(join(this.root, "tsconfig.json"))}`);
    return sf;
  }

  private site(fileName: string, pos: number): Site {
    const sf = this.service.getProgram()!.getSourceFile(fileName)!;
    return { file: this.rel(fileName), line: sf.getLineAndCharacterOfPosition(pos).line + 1 };
  }

  /**
   * Declarations named by a name path (`Cls/method`, `fn`) in a file, in document order
   * (overloads give several). Only named declarations count as path segments.
   */
  declarations(rel: string, namePath: string): ts.NamedDeclaration[] {
    const want = namePath.split("/");
    const out: ts.NamedDeclaration[] = [];
    const visit = (node: ts.Node, path: string[]) => {
      const name = (node as ts.NamedDeclaration).name;
      let here = path;
      if (name && ts.isIdentifier(name) && (ts.isDeclarationStatement(node) || ts.isClassElement(node))) {
        here = [...path, name.text];
        if (here.length === want.length && here.every((s, i) => s === want[i])) {
          out.push(node as ts.NamedDeclaration);
        }
      }
      ts.forEachChild(node, (c) => visit(c, here));
    };
    visit(this.sourceFile(rel), []);
    if (out.length === 0) throw new Error(`no declaration ${namePath} in ${rel}`);
    return out;
  }

  private namePos(rel: string, namePath: string): number {
    return this.declarations(rel, namePath)[0]!.name!.getStart();
  }

  /** Reference sites (the declarations themselves left out, as scalpel does). */
  references(rel: string, namePath: string): Site[] {
    const out: Site[] = [];
    for (const group of this.service.findReferences(this.abs(rel), this.namePos(rel, namePath)) ?? []) {
      for (const r of group.references) {
        if (!r.isDefinition) out.push(this.site(r.fileName, r.textSpan.start));
      }
    }
    return out;
  }

  /** Every place a rename changes (declarations included). */
  renameSites(rel: string, namePath: string): Site[] {
    const locs = this.service.findRenameLocations(
      this.abs(rel),
      this.namePos(rel, namePath),
      false,
      false,
      {},
    );
    return (locs ?? []).map((l) => this.site(l.fileName, l.textSpan.start));
  }

  /** Implementations as `file` + declared name + the service's kind (`class`, or empty for an expression). */
  implementations(rel: string, namePath: string): Array<{ file: string; name: string; kind: string }> {
    const out: Array<{ file: string; name: string; kind: string }> = [];
    for (const loc of this.service.getImplementationAtPosition(this.abs(rel), this.namePos(rel, namePath)) ??
      []) {
      const sf = this.service.getProgram()!.getSourceFile(loc.fileName)!;
      // The location spans the implementing declaration (or its name): take the innermost named one.
      let named: string | undefined;
      const visit = (n: ts.Node) => {
        if (n.getStart(sf) <= loc.textSpan.start && loc.textSpan.start < n.getEnd()) {
          const name = (n as ts.NamedDeclaration).name;
          if (name && ts.isIdentifier(name) && (ts.isClassLike(n) || ts.isDeclarationStatement(n)))
            named = name.text;
          ts.forEachChild(n, visit);
        }
      };
      visit(sf);
      out.push({ file: this.rel(loc.fileName), name: named ?? "?", kind: loc.kind });
    }
    return out;
  }

  /** First and last line of a declaration, its JSDoc included (what scalpel calls head + body). */
  span(rel: string, namePath: string): { first: number; last: number } {
    const decls = this.declarations(rel, namePath);
    const sf = this.sourceFile(rel);
    const first = sf.getLineAndCharacterOfPosition(decls[0]!.getStart(sf, true)).line + 1;
    const last = sf.getLineAndCharacterOfPosition(decls.at(-1)!.getEnd()).line + 1;
    return { first, last };
  }

  /** Top-level symbols of each file under `dir` (navigation tree, imports left out). */
  topLevel(dir: string): Array<{ file: string; name: string }> {
    const out: Array<{ file: string; name: string }> = [];
    const prefix = `${dir}/`;
    for (const abs of this.parsed.fileNames) {
      const file = this.rel(abs);
      if (!file.startsWith(prefix)) continue;
      for (const item of this.service.getNavigationTree(abs).childItems ?? []) {
        if (item.kind === ts.ScriptElementKind.alias) continue;
        out.push({ file, name: item.text });
      }
    }
    return out;
  }

  /** Error sites of the whole program, as tsc reports them (fresh program: reads the disk now). */
  errorSites(): Array<Site & { code: number }> {
    const program = ts.createProgram({ rootNames: this.parsed.fileNames, options: this.parsed.options });
    const out: Array<Site & { code: number }> = [];
    for (const d of ts.getPreEmitDiagnostics(program)) {
      if (d.category !== ts.DiagnosticCategory.Error || !d.file || d.start === undefined) continue;
      const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
      out.push({ file: this.rel(d.file.fileName), line, code: d.code });
    }
    return out;
  }
}
