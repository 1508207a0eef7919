/**
 * The command line, parsed strictly: every command names its options, and an unknown option, a
 * missing or unexpected value, or a stray argument is an error that lists the valid ones. A
 * misspelt `--readonly` silently ignored gave an agent full write access; a refusal costs a retry.
 */

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

/** `--name VALUE`, `--name=VALUE`, or a switch `--name`. */
export function parseCommandLine(
  argv: readonly string[],
  specFor: (command: string) => CommandSpec | undefined,
): ParsedArgs {
  const options = new Map<string, string | true | string[]>();
  const positionals: string[] = [];
  let command: string | undefined;
  let spec: CommandSpec | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") throw new UsageError("'--' is not supported; give options as --name value.");
    if (/^-[^-]/.test(a)) throw new UsageError(`Unknown option '${a}'; options are spelt --name.`);
    if (!a.startsWith("--")) {
      if (command === undefined) {
        command = a;
        spec = specFor(a);
        if (!spec) throw new UsageError(`Unknown command or tool '${a}'.`);
        continue;
      }
      const allowed = spec?.positionals;
      if (!allowed || positionals.length >= allowed.max) {
        throw new UsageError(
          allowed
            ? `'${command}' takes at most ${allowed.max} ${allowed.name}; '${a}' is one too many.`
            : `Unexpected argument '${a}' after '${command}'. Options start with --.`,
        );
      }
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    if (name === "") throw new UsageError(`Empty option '${a}'.`);
    const known = spec?.options[name] ?? global[name];
    if (!known) {
      if (spec?.openOptions && !(name in global)) {
        // A tool parameter: a value, or `true` for a bare switch.
        const next = argv[i + 1];
        if (inline !== undefined) options.set(name, inline);
        else if (next !== undefined && !next.startsWith("--")) {
          options.set(name, next);
          i++;
        } else options.set(name, true);
        continue;
      }
      throw new UsageError(unknownOption(name, command, spec));
    }
    if (known.value === undefined) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value (got '--${name}=${inline}').`);
      options.set(name, true);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--"))
        throw new UsageError(`--${name} needs a value: --${name} ${known.value}.`);
      value = next;
      i++;
    }
    if (value === "") throw new UsageError(`--${name} needs a non-empty ${known.value}.`);
    const before = options.get(name);
    if (known.repeat) options.set(name, [...(Array.isArray(before) ? before : []), value]);
    else if (before !== undefined) throw new UsageError(`--${name} is given twice.`);
    else options.set(name, value);
  }
  return { command, options, positionals };
}

function unknownOption(name: string, command: string | undefined, spec: CommandSpec | undefined): string {
  const valid = Object.entries({ ...(spec?.options ?? {}), ...global }).map(
    ([n, o]) => `--${n}${o.value ? ` ${o.value}` : ""}`,
  );
  const close = Object.keys({ ...(spec?.options ?? {}), ...global }).find(
    (n) => n.replaceAll("-", "") === name.replaceAll(/[-_]/g, "") || editDistance(n, name) <= 2,
  );
  return `Unknown option --${name}${command ? ` for '${command}'` : ""}.${close ? ` Did you mean --${close}?` : ""} Valid options: ${valid.join(", ")}.`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
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
