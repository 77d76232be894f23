// What the pipeline answers: a status, headers and a body, turned into the runtime's Fetch Response only where one is
// needed (app.ts); Node's adapter writes it as it is, headers as the flat list node:http's writeHead takes.

/** A body the pipeline gives: text or bytes written whole, a stream, or none. */
export type AnswerBody = string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;

/** Header names and values as a flat list, names lower-case (RFC 9110 §5.1: they are case-insensitive). */
export class AnswerHeaders {
  readonly list: string[] = [];

  constructor(init?: Record<string, string>) {
    for (const name in init) this.set(name, init[name]);
  }

  get(name: string): string | null {
    const lower = name.toLowerCase();
    for (let i = 0; i < this.list.length; i += 2) if (this.list[i] === lower) return this.list[i + 1];
    return null;
  }

  set(name: string, value: string): void {
    const lower = name.toLowerCase();
    for (let i = 0; i < this.list.length; i += 2) {
      if (this.list[i] === lower) {
        this.list[i + 1] = value;
        return;
      }
    }
    this.list.push(lower, value);
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  delete(name: string): void {
    const lower = name.toLowerCase();
    for (let i = this.list.length - 2; i >= 0; i -= 2) {
      if (this.list[i] === lower) this.list.splice(i, 2);
    }
  }

  forEach(each: (value: string, name: string) => void): void {
    for (let i = 0; i < this.list.length; i += 2) each(this.list[i + 1], this.list[i]);
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (let i = 0; i < this.list.length; i += 2) yield [this.list[i], this.list[i + 1]];
  }
}

export type AnswerInit = { status?: number; headers?: Record<string, string> | AnswerHeaders };

export class Answer {
  readonly status: number;
  readonly headers: AnswerHeaders;
  readonly body: AnswerBody;

  constructor(body: AnswerBody, init: AnswerInit = {}) {
    this.body = body;
    this.status = init.status ?? 200;
    this.headers = init.headers instanceof AnswerHeaders ? init.headers : new AnswerHeaders(init.headers);
  }
}

/** The answer as a Fetch Response of the runtime's class (whatwg-node's on Node, the global one elsewhere). */
export function toResponse(answer: Answer, ResponseClass: typeof Response = Response): Response {
  return new ResponseClass(answer.body, {
    status: answer.status,
    headers: answer.headers.list.length ? [...answer.headers] : undefined,
  });
}
