import { budgetPercent, fallbackCount, fallbacksByReason, type AiVerdictsState, type RecentModelStats } from '../ops/ai-verdicts-state';
import type { ModelStats } from '../verdicts/judge-postings';
import { Pill, Tile, utc } from './ops-view';

/**
 * The ops page's "AI verdicts" panel (docs/operations.md): off, with how to turn it on; or on,
 * with the model's name, today's tokens against AI_DAILY_TOKEN_BUDGET (and, once they reach it,
 * that keywords alone decide until 00:00 UTC), the per-run call cap and whether recent runs hit
 * it, and what the recent runs' model stages did. It shows no key and no server address.
 */
const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** `budget 3, timeout 1`: pairs decided by keywords alone, by why. */
export const fallbackReasons = (fallbacks: ModelStats['fallbacks']) =>
  fallbacksByReason(fallbacks)
    .map(([reason, n]) => `${reason} ${count(n)}`)
    .join(', ');

export function AiVerdictsPanel({ ai }: { ai: AiVerdictsState }) {
  return (
    <section aria-labelledby="ai-title" id="ai-verdicts">
      <h2 id="ai-title">
        AI verdicts{' '}
        <span className="count">· {ai.state === 'off' ? 'off: keywords alone decide' : 'on: a model judges the keyword matches'}</span>
      </h2>
      {ai.state === 'off' ? <AiOff /> : <AiOn ai={ai} />}
    </section>
  );
}

function AiOff() {
  return (
    <p>
      <Pill word="off" /> The keyword match alone decides what is sent, and no model is asked (the default). To let a model judge each match
      first, set <code>AI_BASE_URL</code> and <code>AI_MODEL</code> (and <code>AI_API_KEY</code> if the server wants one) to any
      OpenAI-compatible chat-completions server: OpenAI, a local Ollama or vLLM, or a gateway. <code>docs/verdicts.md</code>, &quot;Turning
      it on&quot;, has the values for each.
    </p>
  );
}

function AiOn({ ai }: { ai: Extract<AiVerdictsState, { state: 'on' }> }) {
  const { today, recent } = ai;
  return (
    <>
      {ai.budgetSpent ? (
        <div className="alert" role="status" id="ai-budget-spent">
          <p>
            <strong>Daily token budget spent — keywords alone decide until 00:00 UTC</strong> ({utc(ai.budgetResetsAt)} UTC):{' '}
            {count(today.tokens)} of {count(ai.dailyTokenBudget)} tokens used today. No model is asked until then; matches are sent on their
            keywords, and their emails say so in one line.
          </p>
        </div>
      ) : null}
      <dl className="facts">
        <dt>Model</dt>
        <dd>
          <code>{ai.model}</code> <Pill word="on" />
        </dd>
        <dt>Tokens today (UTC)</dt>
        <dd>
          {count(today.tokens)} of {count(ai.dailyTokenBudget)} (<code>AI_DAILY_TOKEN_BUDGET</code>),{' '}
          {budgetPercent(today.tokens, ai.dailyTokenBudget)}% · {plural(today.calls, 'answered call')}{' '}
          {ai.budgetSpent ? <Pill word="spent" /> : null}
        </dd>
        <dt>Calls per run</dt>
        <dd>
          at most {count(ai.maxCallsPerRun)} (<code>AI_MAX_CALLS_PER_RUN</code>) · <CallCap recent={recent} />
        </dd>
      </dl>
      <RecentModel recent={recent} />
    </>
  );
}

function CallCap({ recent }: { recent: RecentModelStats }) {
  const atCap = recent.runsAtCallCap ?? 0;
  const byTokens = recent.runsOverBudget - atCap;
  if (recent.runsOverBudget === 0) return <>no recent run hit a limit</>;
  return (
    <span className="err">
      {atCap > 0 ? `reached in ${plural(atCap, 'run')} of the last ${count(recent.runs)}` : null}
      {atCap > 0 && byTokens > 0 ? '; ' : null}
      {byTokens > 0 ? `${plural(byTokens, 'run')} stopped by the daily token budget` : null}
    </span>
  );
}

function RecentModel({ recent }: { recent: RecentModelStats }) {
  const keywordsDecided = fallbacksByReason(recent.fallbacks).reduce((sum, [, n]) => sum + n, 0);
  return (
    <>
      <h3>
        Recent runs{' '}
        <span className="count">
          · the last {plural(recent.runs, 'run')}, {count(recent.runsWithModel)} with the model on
        </span>
      </h3>
      <div className="tiles">
        <Tile n={recent.calls} label="model calls" />
        <Tile n={recent.tokens} label="tokens" />
        <Tile n={recent.judged} label="matches judged" />
        <Tile n={recent.notAFit} label="judged not a fit (not sent)" />
        <Tile n={keywordsDecided} label="decided by keywords alone" bad />
      </div>
      <p className="muted">
        {keywordsDecided === 0
          ? 'No match fell back to keywords.'
          : `Decided by keywords alone, by why: ${fallbackReasons(recent.fallbacks)}.`}
      </p>
    </>
  );
}

/** A run's row: how many of its matches keywords decided because the model did not, and why (like "claims given up"). */
export function ModelFallbackNote({ model }: { model: ModelStats | null }) {
  const n = fallbackCount(model);
  if (!model || n === 0) return null;
  return (
    <span className="sub">
      {plural(n, 'model fallback')} ({fallbackReasons(model.fallbacks)})
    </span>
  );
}
