// What a command returns: one JSON object for --json, and lines for a person.
export type CommandResult = { json: Record<string, unknown>; text: string };

export const result = (json: Record<string, unknown>, text: string): CommandResult => ({ json, text });
