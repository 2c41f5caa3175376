/**
 * The zone a schedule is read in when none is chosen. Its own file, free of luxon and zod: the
 * form script (lib/client) preselects the browser's zone only while a select still shows this one.
 */
export const DEFAULT_TIMEZONE = 'UTC';
