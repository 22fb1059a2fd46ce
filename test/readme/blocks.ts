/** The fenced blocks of a markdown file, with the label of the `<!-- readme: NAME -->` comment just above each. */
export interface Block {
  lang: string;
  label: string | null;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

const LABEL = /^<!--\s*readme:\s*([a-z0-9-]+)\s*-->$/;

export function blocksOf(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let label: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const named = LABEL.exec(line.trim());
    if (named) {
      label = named[1] ?? null;
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      if (line.trim() !== '') label = null;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    blocks.push({ lang: fence[1] ?? '', label, code: body.join('\n'), line: start + 1 });
    label = null;
  }
  return blocks;
}
