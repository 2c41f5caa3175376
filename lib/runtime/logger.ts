/** One structured JSON line per event, carrying the runId; never a secret or a full address. */
export type Logger = (event: string, fields?: Record<string, unknown>) => void;

export const jsonLogger: Logger = (event, fields = {}) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), event, ...fields })}\n`);
};

export const silentLogger: Logger = () => {};

/** "ada@example.com" → "a***@example.com": enough to recognise, not enough to harvest. */
export const maskEmail = (email: string) => email.replace(/^(.)[^@]*(@.*)$/, '$1***$2');
