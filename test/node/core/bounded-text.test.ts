import { describe, expect, it } from 'vitest';
import { boundedText } from '../../../src/core/bounded-text';

class TooLarge extends Error {}
class Broken extends Error {}
const errors = { tooLarge: () => new TooLarge('too large'), broken: () => new Broken('broken') };

/** A body of `parts`, each its own chunk, and whether it was cancelled. */
function chunked(parts: Array<string | Uint8Array>) {
  const state = { cancelled: false };
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === parts.length) return controller.close();
      const part = parts[next++]!;
      controller.enqueue(typeof part === 'string' ? new TextEncoder().encode(part) : part);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

describe('boundedText', () => {
  it('reads a body whole, chunk by chunk, as UTF-8 (a character split across chunks too)', async () => {
    const e = new TextEncoder().encode('é');
    const { body } = chunked(['grant_type=', 'client_credentials', '&scope=', e.slice(0, 1), e.slice(1)]);
    expect(await boundedText(body, null, 64, errors)).toBe('grant_type=client_credentials&scope=é');
  });

  it('reads one chunk, and no body, as Response.text() does', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xff]);
    expect(await boundedText(chunked([bom]).body, null, 64, errors)).toBe(await new Response(bom).text());
    expect(await boundedText(null, null, 64, errors)).toBe('');
    expect(await boundedText(chunked([]).body, '0', 64, errors)).toBe('');
  });

  it('accepts exactly the limit', async () => {
    expect(await boundedText(chunked(['12345', '67890']).body, '10', 10, errors)).toBe('1234567890');
  });

  it('refuses a declared length past the limit without reading it', async () => {
    const { body } = chunked(['x']);
    await expect(boundedText(body, '11', 10, errors)).rejects.toBeInstanceOf(TooLarge);
    // Never read: nobody took its reader.
    expect(body.locked).toBe(false);
  });

  it('refuses a body that passes the limit as it arrives, and cancels the rest', async () => {
    const { body, state } = chunked(['12345', '678901', 'never read']);
    await expect(boundedText(body, null, 10, errors)).rejects.toBeInstanceOf(TooLarge);
    expect(state.cancelled).toBe(true);
  });

  it('refuses a body longer than it declared', async () => {
    await expect(boundedText(chunked(['12345', '678901']).body, '5', 10, errors)).rejects.toBeInstanceOf(TooLarge);
  });

  it('turns a failed read into `broken`, or lets the read error through without it', async () => {
    const breaking = () => {
      let sent = false;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) throw new Error('aborted');
          sent = true;
          controller.enqueue(new TextEncoder().encode('half a bo'));
        },
      });
    };
    await expect(boundedText(breaking(), null, 64, errors)).rejects.toBeInstanceOf(Broken);
    await expect(boundedText(breaking(), null, 64, { tooLarge: errors.tooLarge })).rejects.toThrow('aborted');
  });
});
