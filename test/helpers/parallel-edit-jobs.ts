/**
 * The edits that race on test/fixtures/ts-parallel (parallel-edits and daemon e2e): per file,
 * 3 body replacements, 2 insertions and 2 slot comments, each leaving a marker that is on disk
 * exactly when its edit landed.
 */

export interface EditJob {
  tool: string;
  args: Record<string, unknown>;
  file: string;
  /** Text that is on disk exactly when this edit landed. */
  marker: string;
}

export function editJobsFor(name: string): EditJob[] {
  const file = `src/${name}.ts`;
  const jobs: EditJob[] = [];
  for (const i of [0, 1, 2]) {
    const marker = `M-body-${name}${i}`;
    jobs.push({
      tool: "replace_symbol_body",
      file,
      marker,
      args: {
        relative_path: file,
        name_path: `${name}${i}`,
        body: `export function ${name}${i}(x: number): number {\n  return x * ${i + 10}; // ${marker}\n}`,
      },
    });
  }
  for (const i of [3, 4]) {
    const marker = `M-after-${name}${i}`;
    jobs.push({
      tool: "insert_after_symbol",
      file,
      marker,
      args: {
        relative_path: file,
        name_path: `${name}${i}`,
        body: `\nexport function ${name}${i}Next(x: number): number {\n  return ${name}${i}(x) - 1; // ${marker}\n}`,
      },
    });
  }
  for (const i of [5, 6]) {
    const marker = `M-slot-${name}-${i}`;
    jobs.push({
      tool: "replace_content",
      file,
      marker,
      args: { relative_path: file, needle: `// slot-${name}-${i}`, replacement: `// ${marker}` },
    });
  }
  return jobs;
}
