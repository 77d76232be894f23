// What every runtime adapter offers the entry file.

export type Listening = {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
};

export type Handler = (request: Request) => Promise<Response>;

/** A response written without the Fetch machinery: for the few requests an adapter can answer directly. */
export type DirectAnswer = { status: number; headers: Record<string, string>; body: string };

/** Undefined whenever the Fetch handler must answer. */
export type Direct = (method: string, url: string, traceparent: string | undefined) => DirectAnswer | undefined;

export type Serve = (app: Handler, options: { port: number; host: string; direct?: Direct }) => Promise<Listening>;
