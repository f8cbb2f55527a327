/** What the docs checker reads from a Markdown file: shell commands and mentioned paths, with their line numbers. */

export interface DocCommand {
  file: string;
  /** 1-based line where the command starts. */
  line: number;
  /** The command as written, continuation lines joined, comment removed. */
  text: string;
  /** The block is marked as needing the network or an account: ```sh online */
  online: boolean;
  /** Which shell block of the file (0, 1, ...): a gateway a block starts serves that block's commands. */
  block: number;
  /** The status a `# HTTP/1.1 421 ...` comment right under the command says it answers (otherwise 2xx or 3xx). */
  expect?: string;
}

export interface PathMention {
  file: string;
  line: number;
  path: string;
  /** A Markdown link resolves against the file's directory; a code span against the repository root. */
  kind: 'link' | 'code';
}

/** The marker of a block whose commands cannot run offline on a fresh clone: ```sh online */
export const ONLINE_MARKER = 'online';
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** The commands of every ```sh block: `\` continuations joined, `#` comments dropped, blank lines skipped. */
export function extractCommands(file: string, text: string): DocCommand[] {
  const lines = text.split('\n');
  const commands: DocCommand[] = [];
  let fence: { marker: string; shell: boolean; online: boolean } | undefined;
  let block = -1;
  let lastEnd = -1;
  let pending: { line: number; text: string } | undefined;
  lines.forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})\s*(.*)$/.exec(raw);
    if (!fence) {
      if (opening) {
        const words = opening[2]!.trim().split(/\s+/);
        fence = { marker: opening[1]!, shell: SHELL.has(words[0]!.toLowerCase()), online: words.slice(1).includes(ONLINE_MARKER) };
        if (fence.shell) block++;
      }
      return;
    }
    if (opening && opening[1]!.startsWith(fence.marker[0]!) && opening[1]!.length >= fence.marker.length && opening[2]!.trim() === '') {
      fence = undefined;
      return;
    }
    if (!fence.shell) return;
    const status = /^\s*#\s*HTTP\/[\d.]+ (\d{3})\b/.exec(raw);
    const previous = commands.at(-1);
    if (status && !pending && previous && previous.block === block && lastEnd === index - 1) previous.expect = status[1];
    const content = stripComment(raw).trimEnd();
    const continued = content.endsWith('\\');
    const piece = (continued ? content.slice(0, -1) : content).trim();
    pending = pending ? { line: pending.line, text: `${pending.text} ${piece}` } : { line: index + 1, text: piece };
    if (continued) return;
    if (pending.text.trim()) {
      commands.push({ file, line: pending.line, text: pending.text.trim(), online: fence.online, block });
      lastEnd = index;
    }
    pending = undefined;
  });
  return commands;
}

/** The line without a `#` comment (a `#` that starts a word outside quotes). */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Repository paths the prose mentions: relative Markdown links, and code spans naming a file under a source folder. */
export function extractPathMentions(file: string, text: string, folders: readonly string[]): PathMention[] {
  const mentions: PathMention[] = [];
  let inFence = false;
  const folderPath = new RegExp(`^(?:\\./)?(?:${folders.map((f) => f.replace('.', '\\.')).join('|')})/[\\w./-]*$`);
  text.split('\n').forEach((line, index) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) return;
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^([a-z]+:|#)/i.test(target!)) continue;
      mentions.push({ file, line: index + 1, path: target!.split('#')[0]!, kind: 'link' });
    }
    for (const [, code] of line.matchAll(/`([^`\s]+)`/g)) {
      if (folderPath.test(code!)) mentions.push({ file, line: index + 1, path: code!, kind: 'code' });
    }
  });
  return mentions;
}
