/** A JSON value kept as the UTF-8 bytes it serializes to (a stored record): copied, never re-parsed. */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}

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
  const raw = (value: RawJson) => {
    parts.push(text, value.bytes);
    text = '';
  };
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function') continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (value instanceof RawJson) raw(value);
    else if (Array.isArray(value) && value.some((v) => v instanceof RawJson)) {
      text += '[';
      value.forEach((v, i) => {
        if (i > 0) text += ',';
        if (v instanceof RawJson) raw(v);
        else text += JSON.stringify(v) ?? 'null';
      });
      text += ']';
    } else {
      text += JSON.stringify(value);
    }
  }
  parts.push(`${text}}`);
  // UTF-8 needs at most 3 bytes per UTF-16 unit.
  let max = 0;
  for (const p of parts) max += typeof p === 'string' ? p.length * 3 : p.byteLength;
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
