import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A delimited file's rows, each keyed by the header's column names. */
export type Table = Record<string, string>[];

/** Stage 1's output: every source file of `../shared/data` as a table. */
export interface Sources {
  plants: Table;
  synonyms: Table;
  characteristics: Table;
  higherTaxa: Table;
  vascanTaxa: Table;
  vascanNames: Table;
  languages: Table;
}

/** Stage 1: reads every source file; the VASCAN files are tab-separated and never quoted. */
export function readSources(dataDir: string): Sources {
  const vDir = resolve(dataDir, 'vascan_traditional_use');
  return {
    plants: readTable(resolve(dataDir, 'usda_plants.csv'), ','),
    synonyms: readTable(resolve(dataDir, 'usda_synonyms.csv'), ','),
    characteristics: readTable(resolve(dataDir, 'usda_plant_characteristics.csv'), ','),
    higherTaxa: readTable(resolve(dataDir, 'usda_higher_taxa.csv'), ','),
    vascanTaxa: readTable(resolve(vDir, 'taxon.tsv'), '\t', false),
    vascanNames: readTable(resolve(vDir, 'vernacularname.tsv'), '\t', false),
    languages: readTable(resolve(vDir, 'language-mapping.tsv'), '\t', false),
  };
}

/** RFC 4180 parser: quoted fields, doubled quotes, delimiters and newlines inside quotes; LF or CRLF. */
export function parseCsv(text: string, delimiter = ','): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      inQuotes = true;
      i++;
    } else if (c === delimiter) {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (inQuotes) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Parses a delimited file with a header row into objects keyed by column name. */
function readTable(path: string, delimiter: string, quoting = true): Table {
  const text = readFileSync(path, 'utf8');
  const rows = quoting
    ? parseCsv(text, delimiter)
    : text
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)
        .filter((l) => l !== '')
        .map((l) => l.split(delimiter));
  const header = rows[0];
  if (!header) throw new Error(`${path}: empty file`);
  return rows.slice(1).map((cells, idx) => {
    if (cells.length !== header.length) {
      throw new Error(`${path}: row ${idx + 2} has ${cells.length} cells, header has ${header.length}`);
    }
    const obj: Record<string, string> = {};
    header.forEach((h, j) => {
      obj[h] = cells[j]!;
    });
    return obj;
  });
}

/** A cell's trimmed value, or null for an empty cell (the sources' "unknown"). */
export function nonEmpty(s: string | undefined): string | null {
  const v = (s ?? '').trim();
  return v === '' ? null : v;
}
