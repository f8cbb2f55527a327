/** What a bounded read throws: past the limit, and (when given) for a body that stopped arriving. */
export interface BoundedReadErrors {
  tooLarge(): Error;
  /** A failed read of the body; without it, the read's own error propagates. */
  broken?(): Error;
}

const decoder = new TextDecoder();

/**
 * A body as UTF-8 text (as `Response.text()` decodes it), refusing more than `max` bytes: unread
 * when its declared length is past the limit, otherwise once the bytes read pass it, and then the
 * rest is cancelled. Read straight from the body's own reader: a second stream or `Request`
 * around it would cost more than reading a small form does.
 */
export async function boundedText(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | null | undefined,
  max: number,
  errors: BoundedReadErrors,
): Promise<string> {
  if (Number(declaredLength) > max) throw errors.tooLarge();
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (err) {
      throw errors.broken ? errors.broken() : err;
    }
    if (read.done) break;
    size += read.value.byteLength;
    if (size > max) {
      void reader.cancel().catch(() => {});
      throw errors.tooLarge();
    }
    chunks.push(read.value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return decoder.decode(bytes);
}
