// Command-line options of the bench tools: `--name value` pairs and bare flags.

/** The number after `--name` on the command line, or `fallback` when the option is absent. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
