/** One sample of the Prometheus text format (0.0.4): its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format line by line; a line that is neither a comment nor a sample fails the parse. */
export function parsePrometheus(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/.exec(line);
      if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(m[3] ?? '').matchAll(LABEL)].map(([, k, v]) => [
          k!,
          v!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)),
        ]),
      );
      return { name: m[1]!, labels, value: Number(m[4]) };
    });
}

/** The sum of the samples of `name` whose labels include `where`. */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}
