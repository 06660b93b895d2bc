import type { Option, OptionTable } from './cli-options.js';

/** How the flag reads in help and the README: `--pii full|pseudonymous`, `--port N`, `--demo`. */
export const flagSpec = (option: Option): string => {
  const value = option.choices?.join('|') ?? option.value;
  return value ? `--${option.flag} ${value}` : `--${option.flag}`;
};

/** Words of `text` in lines of at most `width` characters, each indented by `indent`. */
function wrap(text: string, indent: string, width = 100): string {
  const lines = [indent];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (lines[last]!.length > indent.length && lines[last]!.length + 1 + word.length > width) lines.push(indent + word);
    else lines[last] += (lines[last]!.length > indent.length ? ' ' : '') + word;
  }
  return lines.join('\n');
}

export function optionsHelp(table: OptionTable): string {
  const rows = Object.values(table).map(
    (o) => `  ${flagSpec(o).padEnd(34)} ${o.env}\n${wrap(`${o.help} (default: ${o.shown})`, '      ')}\n`,
  );
  return `Options (each flag has an environment variable; the flag wins over it):\n${rows.join('')}`;
}
