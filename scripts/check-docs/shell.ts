/**
 * Just enough of the shell's grammar to see which programs a documented command runs: words with
 * quotes removed, split at `|`, `&&`, `||`, `;`, with each `$( ... )` as a command of its own.
 */
export interface Segment {
  /** Leading `NAME=value` assignments. */
  assignments: string[];
  words: string[];
}

export function segments(command: string): Segment[] {
  const out: Segment[] = [];
  lex(command, 0, out, false);
  return out;
}

/** Lexes from `start`; inside `$(` stops at its `)` and returns the index after it. */
function lex(text: string, start: number, out: Segment[], nested: boolean): number {
  let words: string[] = [];
  let word: string | undefined;
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endSegment = () => {
    endWord();
    const firstCommand = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    const split = firstCommand === -1 ? words.length : firstCommand;
    if (words.length) out.push({ assignments: words.slice(0, split), words: words.slice(split) });
    words = [];
  };
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '$' && text[i + 1] === '(') {
      i = lex(text, i + 2, out, true);
      word = `${word ?? ''}$(…)`;
      continue;
    }
    if (nested && c === ')') {
      endSegment();
      return i + 1;
    }
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close === -1 ? text.length : close;
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '$' && text[j + 1] === '(') {
          j = lex(text, j + 2, out, true);
          value += '$(…)';
          continue;
        }
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      word = (word ?? '') + value;
      i = j + 1;
      continue;
    }
    if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[i + 1];
      i += 2;
      continue;
    }
    const redirection = c === '&' && (text[i - 1] === '>' || text[i - 1] === '<' || text[i + 1] === '>');
    if (!redirection && (c === '|' || c === ';' || c === '&')) {
      endSegment();
      i += text[i + 1] === c ? 2 : 1;
      continue;
    }
    if (/\s/.test(c)) endWord();
    else word = (word ?? '') + c;
    i++;
  }
  endSegment();
  return i;
}
