/** gRPC status codes the ledger relies on to know who won a race. */
const ALREADY_EXISTS = 6;
const FAILED_PRECONDITION = 9;
const NOT_FOUND = 5;

const code = (error: unknown) => (error as { code?: unknown } | null)?.code;

export const isAlreadyExists = (error: unknown) => code(error) === ALREADY_EXISTS;
/** A write guarded by lastUpdateTime lost: someone else changed the document since we read it. */
export const isLostPrecondition = (error: unknown) => code(error) === FAILED_PRECONDITION || code(error) === NOT_FOUND;
/** Either way of losing a guarded write to a concurrent writer: the create found a document, or the version moved. */
export const isLostRace = (error: unknown) => isAlreadyExists(error) || isLostPrecondition(error);
