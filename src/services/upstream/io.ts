import { MalformedUpstream } from './envelope-check';

/** The body as text, refusing more than `max` bytes. */
export async function readBounded(res: Response, max: number): Promise<string> {
  if (Number(res.headers.get('content-length')) > max) throw new MalformedUpstream(`body larger than ${max} bytes`);
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void reader.cancel().catch(() => {});
      throw new MalformedUpstream(`body larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Waits `ms`, or less if the deadline passes first. */
export function pause(ms: number, deadline: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    deadline.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
