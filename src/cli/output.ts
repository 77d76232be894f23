// What a command returns: one JSON object for --json, and lines for a person.
/** warnings: lines for stderr (also in json, where the command puts them), whatever the output format. */
export type CommandResult = { json: Record<string, unknown>; text: string; warnings?: string[] };

export const result = (json: Record<string, unknown>, text: string): CommandResult => ({ json, text });
