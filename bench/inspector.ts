/**
 * What a benchmarked Node process holds, read through its inspector (`--inspect=127.0.0.1:PORT`):
 * a full collection first, so what is left is what the process keeps alive, not garbage V8 has
 * not yet collected.
 */
import WebSocket from 'ws';

export interface LiveMemory {
  /** JavaScript heap in use after a full collection, MB. */
  heapMb: number;
  /** ArrayBuffers and other memory outside the heap that objects hold, MB. */
  externalMb: number;
}

/** Collects garbage in the process whose inspector listens on `port`, then reads its memory. */
export async function liveMemory(port: number): Promise<LiveMemory> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 0;
  type Answer = { id?: number; result?: { result?: { value?: string } } };
  const send = (method: string, params: object = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`inspector: no answer to ${method}`)), 30_000);
      const onMessage = (data: WebSocket.RawData) => {
        const msg = JSON.parse(String(data)) as Answer;
        if (msg.id !== id) return;
        clearTimeout(timer);
        ws.off('message', onMessage);
        resolve(msg);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('HeapProfiler.collectGarbage');
    const read = await send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const usage = JSON.parse(read.result!.result!.value!) as { heapUsed: number; external: number };
    return { heapMb: usage.heapUsed / 2 ** 20, externalMb: usage.external / 2 ** 20 };
  } finally {
    ws.close();
  }
}
