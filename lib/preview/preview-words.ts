import { PREVIEW_WINDOW_DAYS } from './preview';

/**
 * The preview panel's lines that the form script (lib/client) shows without asking the server:
 * before anything is typed (and again when the keywords are emptied), and when the server could
 * not be reached. The panel's component (preview-panel.tsx) renders the same. Free of React.
 */
export const PREVIEW_IDLE = `Type your keywords (or press Preview) to see how many postings of the last ${PREVIEW_WINDOW_DAYS} days would have matched, the best of them, and how many emails that makes.`;

export const PREVIEW_UNAVAILABLE = 'The preview could not be loaded. Your form still works: try Preview again in a minute.';
