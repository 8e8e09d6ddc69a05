/**
 * At most `size` pieces of work at a time; the others wait, in the order they asked, for one to end.
 * For work whose memory grows with how many run at once rather than with how long each takes (a
 * change-feed page holds its records and their JSON until it is sent: records/change-feed.ts).
 */
export class Slots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    // A slot is handed from the work that ends straight to the first waiting (busy stays the same).
    if (this.busy < this.size) this.busy++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}
