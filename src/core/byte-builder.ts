/**
 * Text written as UTF-8 bytes into one growing Buffer as it is made: a long answer built over several
 * turns of the event loop (an iCalendar feed) holds its bytes outside V8's heap, instead of thousands
 * of strings that live through collections until they are joined (docs/performance.md "Memory").
 */
export class ByteBuilder {
  private buffer: Buffer;
  private at = 0;

  constructor(initialBytes = 16 * 1024) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  write(text: string): void {
    // A UTF-16 unit is at most 3 bytes: most texts fit without counting their bytes first.
    if (text.length * 3 > this.buffer.length - this.at) this.makeRoom(Buffer.byteLength(text));
    this.at += this.buffer.write(text, this.at);
  }

  /** The bytes written, in a Buffer of exactly their size (the builder is not used afterwards). */
  finish(): Buffer {
    if (this.at === this.buffer.length) return this.buffer;
    const out = Buffer.allocUnsafe(this.at);
    this.buffer.copy(out, 0, 0, this.at);
    return out;
  }

  private makeRoom(bytes: number): void {
    if (bytes <= this.buffer.length - this.at) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}
