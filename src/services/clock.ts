/** Time as a service, so tests can stand on either side of a cut-off date. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  set(instant: string | number): void {
    this.ms = typeof instant === 'number' ? instant : Date.parse(instant);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
