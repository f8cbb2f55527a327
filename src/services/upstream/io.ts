import { boundedText } from '../../core/bounded-text';
import { MalformedUpstream } from './envelope-check';

/** The body as text, refusing more than `max` bytes. */
export function readBounded(res: Response, max: number): Promise<string> {
  return boundedText(res.body, res.headers.get('content-length'), max, { tooLarge: () => new MalformedUpstream(`body larger than ${max} bytes`) });
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
