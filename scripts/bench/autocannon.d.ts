/** The part of autocannon 9's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface RawRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      timeout?: number;
      requests?: Array<
        RawRequest & { setupRequest?: (request: RawRequest) => RawRequest; onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string>) => void }
      >;
    }
    interface Histogram {
      average: number;
      total: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result> & { stop(): void };
  export default autocannon;
}
