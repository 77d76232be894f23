// What every runtime adapter offers the entry file.

export type Listening = {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
};

export type Handler = (request: Request) => Promise<Response>;

export type Serve = (app: Handler, options: { port: number; host: string }) => Promise<Listening>;
