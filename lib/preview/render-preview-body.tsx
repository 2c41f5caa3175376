import { PreviewBody, type PreviewPanelState } from './preview-panel';

/**
 * The panel's content as HTML, for the `html` of POST /api/preview's JSON: the preferences page's
 * script puts it into the panel's live region, so its markup is the component's, escaped by React,
 * not a second copy written in the script. (react-dom/server imported when used: see lib/http/page.tsx.)
 */
export async function renderPreviewBody(state: PreviewPanelState): Promise<string> {
  const { renderToStaticMarkup } = await import('react-dom/server');
  return renderToStaticMarkup(<PreviewBody state={state} />);
}
