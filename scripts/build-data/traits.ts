import type { ColorTrait, FoliageTrait } from '../../src/core/records';
import { nonEmpty, type Table } from './csv';

/** The trait fields of a species record, in the record's key order. */
export interface Traits {
  flower: ColorTrait;
  foliage: FoliageTrait;
  fruit_or_seed: ColorTrait;
  growth_rate: string | null;
}

/** Stage 3b: the characteristics row of each known taxon; rows for an unknown taxon are noted and skipped. */
export function readTraits(characteristics: Table, known: ReadonlySet<string>, warnings: string[]): Map<string, Record<string, string>> {
  const traitsOf = new Map<string, Record<string, string>>();
  for (const r of characteristics) {
    const id = r.symbol!;
    if (!known.has(id)) {
      warnings.push(`characteristics row for unknown symbol ${id}`);
      continue;
    }
    traitsOf.set(id, r);
  }
  return traitsOf;
}

/** A taxon's traits from its characteristics row; a taxon without one gets null everywhere. */
export function traits(tr: Record<string, string> | undefined): Traits {
  return {
    flower: {
      color: colors(tr?.flower_color),
      conspicuous: bool(tr?.flower_conspicuous),
    },
    foliage: {
      color: colors(tr?.foliage_color),
      texture: nonEmpty(tr?.foliage_texture)?.toLowerCase() ?? null,
    },
    fruit_or_seed: {
      color: colors(tr?.fruit_seed_color),
      conspicuous: bool(tr?.fruit_seed_conspicuous),
    },
    growth_rate: nonEmpty(tr?.growth_rate)?.toUpperCase() ?? null,
  };
}

/** Colour cell → UPPERCASE tokens. Multi-valued cells would be split on `,` `;` `|` `/` (none occur). */
function colors(s: string | undefined): string[] | null {
  const v = nonEmpty(s);
  if (v === null) return null;
  const out = v
    .split(/\s*[,;|/]\s*/)
    .map((x) => x.trim().toUpperCase())
    .filter((x) => x !== '');
  return out.length ? [...new Set(out)] : null;
}

/** `TRUE`/`FALSE` (or `Yes`/`No`) as a boolean; anything else is unknown. */
function bool(s: string | undefined): boolean | null {
  const v = (s ?? '').trim().toUpperCase();
  if (v === 'TRUE' || v === 'YES') return true;
  if (v === 'FALSE' || v === 'NO') return false;
  return null;
}
