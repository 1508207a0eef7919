/**
 * The command line, parsed strictly: every command names its options, and an unknown option, a
 * missing or unexpected value, or a stray argument is an error that lists the valid ones. A
 * misspelt `--readonly` silently ignored gave an agent full write access; a refusal costs a retry.
 */
import { parseArgs } from "node:util";
import { didYouMean } from "./core/did-you-mean.js";

export interface OptionSpec {
  /** Takes a value (`--project PATH`); otherwise a switch (`--read-only`). */
  value?: string;
  /** May be given more than once (values collected in order). */
  repeat?: boolean;
  help: string;
}

export interface CommandSpec {
  options: Readonly<Record<string, OptionSpec>>;
  /** Positional arguments after the command, by name (`[PATH]`); none when absent. */
  positionals?: { name: string; max: number };
  /** Options not in `options` are the tool's own parameters, checked by the caller. */
  openOptions?: boolean;
}

export interface ParsedArgs {
  command: string | undefined;
  /** Switches map to `true`; options with a value to the value (the last one, or all with `repeat`). */
  options: Map<string, string | true | string[]>;
  positionals: string[];
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

const global: Readonly<Record<string, OptionSpec>> = {
  help: { help: "show the usage" },
  version: { help: "print the version" },
};

type Token = ReturnType<typeof parseArgs>["tokens"] extends (infer T)[] | undefined ? T : never;

/**
 * `--name VALUE`, `--name=VALUE`, or a switch `--name`. node:util's `parseArgs` splits the words
 * (non-strict, with tokens, so that every refusal below keeps its own wording and suggestion);
 * before the command only `--help` and `--version` are known.
 */
export function parseCommandLine(
  argv: readonly string[],
  specFor: (command: string) => CommandSpec | undefined,
): ParsedArgs {
  const out: ParsedArgs = { command: undefined, options: new Map(), positionals: [] };
  const at = argv.findIndex((a) => a === "-" || !a.startsWith("-"));
  readWords(at < 0 ? argv : argv.slice(0, at), undefined, out);
  if (at < 0) return out;
  const command = argv[at]!;
  const spec = specFor(command);
  if (!spec) throw new UsageError(`Unknown command or tool '${command}'.`);
  out.command = command;
  readWords(argv.slice(at + 1), spec, out);
  return out;
}

function readWords(args: readonly string[], spec: CommandSpec | undefined, out: ParsedArgs): void {
  const known = { ...(spec?.options ?? {}), ...global };
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      Object.entries(known).map(([name, o]) => [
        name,
        {
          type: o.value === undefined ? ("boolean" as const) : ("string" as const),
          multiple: o.repeat === true,
        },
      ]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const { options, positionals } = out;
  for (let t = 0; t < tokens.length; t++) {
    const token: Token = tokens[t]!;
    if (token.kind === "option-terminator")
      throw new UsageError("'--' is not supported; give options as --name value.");
    if (token.kind === "positional") {
      const allowed = spec?.positionals;
      if (!allowed || positionals.length >= allowed.max) {
        throw new UsageError(
          allowed
            ? `'${out.command}' takes at most ${allowed.max} ${allowed.name}; '${token.value}' is one too many.`
            : `Unexpected argument '${token.value}' after '${out.command}'. Options start with --.`,
        );
      }
      positionals.push(token.value);
      continue;
    }
    const raw = args[token.index]!;
    if (!raw.startsWith("--")) throw new UsageError(`Unknown option '${raw}'; options are spelt --name.`);
    const { name } = token;
    if (name === "" || name.startsWith("=")) throw new UsageError(`Empty option '${raw}'.`);
    const option = spec?.options[name] ?? global[name];
    if (!option) {
      if (!spec?.openOptions || name in global) throw new UsageError(unknownOption(name, out.command, spec));
      // A tool parameter: a value (`--name v`, `--name=v`, `--offset -1`), or `true` for a bare switch.
      const next = args[token.index + 1];
      if (token.inlineValue) options.set(name, token.value ?? "");
      else if (next !== undefined && !next.startsWith("--")) {
        options.set(name, next);
        // The value's own tokens (`-1` reads as short options) are the value, not options.
        while (tokens[t + 1]?.index === token.index + 1) t++;
      } else options.set(name, true);
      continue;
    }
    if (option.value === undefined) {
      if (token.inlineValue) throw new UsageError(`--${name} takes no value (got '${raw}').`);
      options.set(name, true);
      continue;
    }
    const value = token.value;
    // parseArgs takes the next word whatever it is; a following `--option` is not a value here.
    if (value === undefined || (!token.inlineValue && value.startsWith("--")))
      throw new UsageError(`--${name} needs a value: --${name} ${option.value}.`);
    if (value === "") throw new UsageError(`--${name} needs a non-empty ${option.value}.`);
    const before = options.get(name);
    if (option.repeat) options.set(name, [...(Array.isArray(before) ? before : []), value]);
    else if (before !== undefined) throw new UsageError(`--${name} is given twice.`);
    else options.set(name, value);
  }
}

function unknownOption(name: string, command: string | undefined, spec: CommandSpec | undefined): string {
  const all = { ...(spec?.options ?? {}), ...global };
  const valid = Object.entries(all).map(([n, o]) => `--${n}${o.value ? ` ${o.value}` : ""}`);
  const close = didYouMean(name, Object.keys(all));
  return `Unknown option --${name}${command ? ` for '${command}'` : ""}.${close ? ` Did you mean --${close}?` : ""} Valid options: ${valid.join(", ")}.`;
}

/** The string value of an option, if given. */
export function optionString(options: ParsedArgs["options"], name: string): string | undefined {
  const v = options.get(name);
  return typeof v === "string" ? v : undefined;
}

export function optionList(options: ParsedArgs["options"], name: string): string[] {
  const v = options.get(name);
  return Array.isArray(v) ? v : [];
}
