/** The headers of a JSON answer built with `respond`: one object, shared by every route. */
export const JSON_TYPE: Readonly<{ 'content-type': 'application/json' }> = { 'content-type': 'application/json' };

/** A JSON value kept as the UTF-8 bytes it serializes to (a stored record): copied, never re-parsed. */
export class RawJson {
  /**
   * @param key the stored record's identity where the source has one (a number), so what is
   * derived from it can be kept by it rather than by this object.
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly key?: number,
  ) {}

  /** The value itself, for a version change that must read or alter it. */
  parse(): unknown {
    return JSON.parse(decoder.decode(this.bytes));
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A response body as UTF-8 bytes, exactly `JSON.stringify(body)` where every `RawJson` stands for
 * the value it holds. Raw values are looked for where the core puts them: as a member of the top
 * object, or as an element of an array there (`data`); deeper values are plain JSON.
 */
export function renderJson(body: unknown): Uint8Array<ArrayBuffer> {
  if (body instanceof RawJson) return body.bytes as Uint8Array<ArrayBuffer>;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return encoder.encode(JSON.stringify(body)) as Uint8Array<ArrayBuffer>;
  // Text runs and stored bytes, in order; text is encoded straight into the one output buffer.
  const parts: Array<Uint8Array | string> = [];
  let text = '{';
  let first = true;
  let max = 0;
  const members = body as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (value === undefined || typeof value === 'function') continue;
    text += `${first ? '' : ','}${quoted(key)}:`;
    first = false;
    if (value instanceof RawJson) {
      parts.push(text, value.bytes);
      max += text.length * 3 + value.bytes.byteLength;
      text = '';
    } else if (Array.isArray(value) && holdsRaw(value)) {
      text += '[';
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (i > 0) text += ',';
        if (v instanceof RawJson) {
          parts.push(text, v.bytes);
          max += text.length * 3 + v.bytes.byteLength;
          text = '';
        } else {
          text += JSON.stringify(v) ?? 'null';
        }
      }
      text += ']';
    } else {
      text += JSON.stringify(value);
    }
  }
  text += '}';
  parts.push(text);
  // UTF-8 needs at most 3 bytes per UTF-16 unit.
  max += text.length * 3;
  const out = new Uint8Array(max);
  let at = 0;
  for (const p of parts) {
    if (typeof p !== 'string') {
      out.set(p, at);
      at += p.byteLength;
    } else if (p.length === 1 && p.charCodeAt(0) < 0x80) {
      out[at++] = p.charCodeAt(0);
    } else if (p.length > 0) {
      at += encoder.encodeInto(p, out.subarray(at)).written;
    }
  }
  return out.subarray(0, at);
}

function holdsRaw(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] instanceof RawJson) return true;
  return false;
}

/** Member names of the bodies the core renders are few: each is quoted once. */
const quotedKeys = new Map<string, string>();
function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < 1024) quotedKeys.set(key, q);
  }
  return q;
}
