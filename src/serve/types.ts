// What every runtime adapter offers the entry file.
import type { App } from '../app.ts';

export type Listening = {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
};

export type Serve = (app: App, options: { port: number; host: string }) => Promise<Listening>;
