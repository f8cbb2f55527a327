/**
 * Which undetected mutants the compiler refuses: a first judgement of a group's survivors, made
 * when the scores table is made. A mutant that does not type-check cannot ship, whatever the tests say of it.
 * Each is checked in a language service over the project's tsconfig.json with the mutated module
 * type-checked again (a third of a second; Stryker's own checker compiles the whole program for
 * every mutant before its tests run, which made a whole run hours long). Unused names are not
 * errors here (`noUnusedLocals`, `noUnusedParameters` off): a block removed with the last use of an
 * import is a change of behaviour, not a type error. An error the change would cause only in
 * another module is not looked for: such a mutant stays a survivor to judge by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

interface Position {
  line: number;
  column: number;
}

/** The part of a Stryker JSON report (mutation-testing-report-schema) this reads and writes. */
export interface CompiledReport {
  files: Record<string, { source: string; mutants: Array<{ id: string; status: string; replacement?: string; location: { start: Position; end: Position } }> }>;
}

/** What no test detected. */
export const UNDETECTED: ReadonlySet<string> = new Set(['Survived', 'NoCoverage']);

/** `source` with the text from `start` to `end` (lines and columns from 1, end exclusive) replaced. */
export function mutatedSource(source: string, start: Position, end: Position, replacement: string): string {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: Position) => lineStarts[p.line - 1]! + p.column - 1;
  return source.slice(0, offset(start)) + replacement + source.slice(offset(end));
}

/** A checker over the project's program: the first compile error of `file` with `text` as its content, or undefined. */
export function compileChecker(root: string): (file: string, text: string) => string | undefined {
  const configPath = join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  const overrides = new Map<string, string>();
  const versions = new Map<string, number>();
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => parsed.options,
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: (file) => String(versions.get(file) ?? 0),
    getScriptSnapshot: (file) => {
      const text = overrides.get(file) ?? (ts.sys.fileExists(file) ? readFileSync(file, 'utf8') : undefined);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  parsed.options.noUnusedLocals = false;
  parsed.options.noUnusedParameters = false;
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const set = (file: string, text: string | undefined) => {
    if (text === undefined) overrides.delete(file);
    else overrides.set(file, text);
    versions.set(file, (versions.get(file) ?? 0) + 1);
  };
  return (relative, text) => {
    const file = join(root, relative);
    set(file, text);
    try {
      const errors = [...service.getSyntacticDiagnostics(file), ...service.getSemanticDiagnostics(file)].filter(
        (d) => d.category === ts.DiagnosticCategory.Error,
      );
      return errors.length === 0 ? undefined : ts.flattenDiagnosticMessageText(errors[0]!.messageText, ' ');
    } finally {
      set(file, undefined);
    }
  };
}

/** The undetected mutants of `report` the compiler refuses, by id, with its first message. */
export function refusedByCompiler(report: CompiledReport, check: (file: string, text: string) => string | undefined): Record<string, string> {
  const refused: Record<string, string> = {};
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants) {
      if (!UNDETECTED.has(mutant.status) || mutant.replacement === undefined) continue;
      const error = check(file, mutatedSource(source, mutant.location.start, mutant.location.end, mutant.replacement));
      if (error !== undefined) refused[mutant.id] = `${file}:${mutant.location.start.line}: ${error}`;
    }
  }
  return refused;
}
