import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { keywordTermSchema } from '../query/keyword-term';
import { MAX_EXCLUDES, parsePreferences, type PreferenceFieldErrors } from '../subscribers/preferences-schema';
import { decideStatus, type StatusAction } from '../subscribers/set-subscriber-status';
import { skipQueuedDeliveries } from './skip-queued-deliveries';
import {
  definedScheduleFields,
  isDigestMode,
  subscribersCollection,
  verdictProfileChanged,
  type Subscriber,
  type SubscriberStatus,
} from '../subscribers/subscriber';
import { rescheduleQueuedDigests } from '../claims/reschedule-queued-digests';
import { isKeywordQuery, queryTextOf, resolveProfileQuery } from '../query/subscriber-query';
import { describeClause } from '../query/print-query';

/**
 * What a subscriber changes from their preferences link: keywords and excludes or their query, budget, mode, about
 * and fit threshold (`updatePreferences`), a suggested exclude (`addExclude`), pause and resume (`changeStatus`). Every write is an update guarded by
 * the `lastUpdateTime` of the version it was decided on; when someone else changed the document
 * in between (another tab, an unsubscribe, the CLI), the decision is taken again on the fresh
 * version — never check-then-act, never a lost update.
 */

/** The delivery reasons this module closes queued items with (the dispatcher uses `subscriber_<status>` too). */
export const MODE_CHANGED_REASON = 'mode_changed';
export const PAUSED_REASON = 'subscriber_paused';

/** Who may change their preferences: confirmed subscribers, paused or not. */
export const EDITABLE_STATUSES: readonly SubscriberStatus[] = ['active', 'paused'];
export const canEditPreferences = (status: SubscriberStatus) => EDITABLE_STATUSES.includes(status);

export type UpdatePreferencesResult =
  | { ok: true; subscriber: Subscriber; skippedDeliveries: number }
  | { ok: false; kind: 'invalid'; errors: PreferenceFieldErrors }
  | { ok: false; kind: 'unknown-subscriber' }
  | { ok: false; kind: 'not-editable'; status: SubscriberStatus };

/**
 * Validates and saves the form. Opt-outs win: once the subscriber is on instant alerts (or
 * paused), their `queued` digest items are closed as `skipped`, so a switch daily → instant never
 * lets yesterday's queue go out later. The sweep runs on every save that leaves them so, which
 * also completes a save that died between the write and the sweep.
 */
export async function updatePreferences(
  db: Firestore,
  params: { uid: string; input: unknown; now: Date; digestHourUtc: number },
): Promise<UpdatePreferencesResult> {
  const parsed = parsePreferences(params.input);
  if (!parsed.ok) return { ok: false, kind: 'invalid', errors: parsed.errors };
  const { minPay, mode } = parsed.preferences;

  const outcome = await updateGuarded(db, params.uid, (current) => {
    if (!canEditPreferences(current.status))
      return stop<UpdatePreferencesResult>({ ok: false, kind: 'not-editable', status: current.status });
    // Decided on the version read: which of the lists and the query was changed depends on what is stored.
    const query = resolveProfileQuery(parsed.preferences, current);
    if (!query.ok) return stop<UpdatePreferencesResult>({ ok: false, kind: 'invalid', errors: { [query.field]: query.message } });
    const { keywords, excludes } = query.stored;
    // Absent from the form: kept as stored (see preferencesSchema).
    const about = parsed.preferences.about ?? current.about;
    const fitThreshold = parsed.preferences.fitThreshold ?? current.fitThreshold;
    const schedule = { ...scheduleFieldsOf(current), ...definedScheduleFields(parsed.preferences) };
    return write(
      preferencesUpdate(
        current,
        { keywords, excludes, query: query.stored.query, minPay, mode, about, fitThreshold, ...schedule },
        params.now,
      ),
    );
  });
  if (outcome.kind === 'unknown') return { ok: false, kind: 'unknown-subscriber' };
  if (outcome.kind === 'stopped') return outcome.value;
  const skippedDeliveries = await closeQueuedItems(db, outcome.subscriber);
  // Run on every save, like the sweep: a save that died before it is completed by the next one.
  await rescheduleQueuedDigests(db, { subscriber: outcome.subscriber, now: params.now, digestHourUtc: params.digestHourUtc });
  return { ok: true, subscriber: outcome.subscriber, skippedDeliveries };
}

/**
 * The one exclude the preferences page suggests from "not a fit" feedback, added in one click
 * through the same guarded update as a save (so profileVersion goes up, and queued items are
 * swept the same way). Decided on the version read: the term joins the excludes stored then, never
 * a list the page showed earlier, so a concurrent save is not undone. Adding one already there
 * changes nothing.
 */
export async function addExclude(db: Firestore, params: { uid: string; term: unknown; now: Date }): Promise<UpdatePreferencesResult> {
  const parsed = keywordTermSchema('exclude').safeParse(params.term);
  if (!parsed.success) return { ok: false, kind: 'invalid', errors: { excludes: parsed.error.issues[0].message } };
  const term = parsed.data;
  const outcome = await updateGuarded(db, params.uid, (current) => {
    if (!canEditPreferences(current.status))
      return stop<UpdatePreferencesResult>({ ok: false, kind: 'not-editable', status: current.status });
    if (current.excludes.includes(term)) return keep;
    if (current.excludes.length >= MAX_EXCLUDES)
      return stop<UpdatePreferencesResult>({ ok: false, kind: 'invalid', errors: { excludes: `enter at most ${MAX_EXCLUDES} excludes` } });
    const query = queryExcluding(current, term);
    if (!query.ok) return stop<UpdatePreferencesResult>({ ok: false, kind: 'invalid', errors: { query: query.message } });
    return write(preferencesUpdate(current, { ...current, ...query.stored }, params.now));
  });
  if (outcome.kind === 'unknown') return { ok: false, kind: 'unknown-subscriber' };
  if (outcome.kind === 'stopped') return outcome.value;
  const skippedDeliveries = await closeQueuedItems(db, outcome.subscriber);
  return { ok: true, subscriber: outcome.subscriber, skippedDeliveries };
}

/**
 * "Weekly instead", offered beside the unsubscribe button: the same guarded update as a save, with
 * only the mode changed (the weekly day kept as stored) and queued items rescheduled the same way.
 * Already weekly changes nothing.
 */
export async function switchToWeekly(db: Firestore, params: { uid: string; now: Date; digestHourUtc: number }): Promise<SwitchModeResult> {
  const outcome = await updateGuarded(db, params.uid, (current) => {
    if (!canEditPreferences(current.status)) return stop<SwitchModeResult>({ ok: false, kind: 'not-editable', status: current.status });
    if (current.mode === 'weekly') return keep;
    return write(preferencesUpdate(current, { ...current, mode: 'weekly' }, params.now));
  });
  if (outcome.kind === 'unknown') return { ok: false, kind: 'unknown-subscriber' };
  if (outcome.kind === 'stopped') return outcome.value;
  const skippedDeliveries = await closeQueuedItems(db, outcome.subscriber);
  await rescheduleQueuedDigests(db, { subscriber: outcome.subscriber, now: params.now, digestHourUtc: params.digestHourUtc });
  return { ok: true, subscriber: outcome.subscriber, skippedDeliveries, changed: outcome.kind === 'updated' };
}

export type SwitchModeResult =
  | { ok: true; subscriber: Subscriber; skippedDeliveries: number; changed: boolean }
  | Extract<UpdatePreferencesResult, { ok: false; kind: 'unknown-subscriber' | 'not-editable' }>;

/**
 * A subscription with one more thing left out: one more exclude of the lists, or, for a query they
 * wrote, `-term` at its end (the lists read from it again), refused when that would pass a
 * query's bounds.
 */
function queryExcluding(current: Subscriber, term: string): ReturnType<typeof resolveProfileQuery> {
  if (isKeywordQuery(current)) return resolveProfileQuery({ keywords: current.keywords, excludes: [...current.excludes, term] });
  const clause = describeClause({ kind: 'term', field: null, text: term, phrase: false, at: 0 });
  const resolved = resolveProfileQuery({ keywords: [], excludes: [], query: `${queryTextOf(current)} -${clause}` }, current);
  return resolved.ok ? resolved : { ...resolved, message: `leaving out “${term}” would make your query too long: ${resolved.message}` };
}

type PreferenceValues = Pick<
  Subscriber,
  'keywords' | 'excludes' | 'query' | 'minPay' | 'mode' | 'about' | 'fitThreshold' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'
>;

const scheduleFieldsOf = (s: Subscriber) => ({
  timezone: s.timezone,
  digestHour: s.digestHour,
  weekdays: s.weekdays,
  weeklyDay: s.weeklyDay,
});

/**
 * What a change of preferences writes. Decided on the version read and written under its guard: a
 * concurrent save makes this one decide again on the fresh version, so each change that matters to
 * a verdict bumps profileVersion once.
 */
function preferencesUpdate(current: Subscriber, next: PreferenceValues, now: Date): SubscriberUpdate {
  const { keywords, excludes, query, minPay, mode, about, fitThreshold, timezone, digestHour, weekdays, weeklyDay } = next;
  const profileChanged = verdictProfileChanged(current, { keywords, excludes, query, minPay, about });
  return {
    keywords,
    excludes,
    ...(query !== undefined ? { query } : {}),
    minPay,
    mode,
    about,
    fitThreshold,
    timezone,
    digestHour,
    weekdays,
    weeklyDay,
    ...(profileChanged ? { profileVersion: current.profileVersion + 1 } : {}),
    updatedAt: now,
  };
}

export type ChangeStatusResult =
  | { ok: true; from: SubscriberStatus; changed: boolean; subscriber: Subscriber; skippedDeliveries: number }
  | { ok: false; kind: 'unknown-subscriber' }
  | { ok: false; kind: 'refused'; status: SubscriberStatus; reason: string };

/**
 * Pause or resume, by the rules of `decideStatus`: only between active and paused, so a link can
 * never revive someone who unsubscribed or skip the double opt-in of someone pending. Pausing
 * closes the queued items (`subscriber_paused`) — also when already paused, to finish a pause that
 * died before its sweep.
 */
export async function changeStatus(db: Firestore, params: { uid: string; action: StatusAction; now: Date }): Promise<ChangeStatusResult> {
  const outcome = await updateGuarded(db, params.uid, (current) => {
    const decision = decideStatus(params.action, current.status);
    if (decision.kind === 'change') return write({ status: decision.to, updatedAt: params.now });
    if (decision.kind === 'unchanged') return keep;
    return stop<ChangeStatusResult>({ ok: false, kind: 'refused', status: current.status, reason: decision.reason });
  });
  if (outcome.kind === 'unknown') return { ok: false, kind: 'unknown-subscriber' };
  if (outcome.kind === 'stopped') return outcome.value;
  const skippedDeliveries = await closeQueuedItems(db, outcome.subscriber);
  return { ok: true, from: outcome.from, changed: outcome.kind === 'updated', subscriber: outcome.subscriber, skippedDeliveries };
}

/** A paused subscriber gets nothing; an instant or feed-only one has no digest to wait for. Either way queued items are closed. */
async function closeQueuedItems(db: Firestore, subscriber: Subscriber): Promise<number> {
  const reason = subscriber.status === 'paused' ? PAUSED_REASON : !isDigestMode(subscriber.mode) ? MODE_CHANGED_REASON : null;
  return reason ? skipQueuedDeliveries(db, { uid: subscriber.id, reason }) : 0;
}

type SubscriberUpdate = Partial<
  Pick<
    Subscriber,
    | 'keywords'
    | 'excludes'
    | 'query'
    | 'minPay'
    | 'mode'
    | 'about'
    | 'fitThreshold'
    | 'profileVersion'
    | 'status'
    | 'updatedAt'
    | 'timezone'
    | 'digestHour'
    | 'weekdays'
    | 'weeklyDay'
  >
>;
type Plan<T> = { kind: 'write'; update: SubscriberUpdate } | { kind: 'keep' } | { kind: 'stop'; value: T };
const write = (update: SubscriberUpdate) => ({ kind: 'write', update }) as const;
const keep = { kind: 'keep' } as const;
const stop = <T>(value: T) => ({ kind: 'stop', value }) as const;
type Guarded<T> =
  { kind: 'unknown' } | { kind: 'stopped'; value: T } | { kind: 'updated' | 'kept'; from: SubscriberStatus; subscriber: Subscriber };

/**
 * The subscriber's plan on a guarded update (with their match index entry): read, decide on what was read, write guarded by the
 * read's version; on a lost guard, decide again. An update (never a set or create) so a link for
 * a subscriber who is gone brings nobody back.
 */
async function updateGuarded<T>(db: Firestore, uid: string, plan: (current: Subscriber) => Plan<T>): Promise<Guarded<T>> {
  return guardedSubscriberUpdate<Guarded<T>>(
    subscribersCollection(db).doc(uid),
    (snap) => {
      const current = snap.data();
      if (!snap.exists || !current || !snap.updateTime) return { done: { kind: 'unknown' } };
      const step = plan(current);
      if (step.kind === 'stop') return { done: { kind: 'stopped', value: step.value } };
      if (step.kind === 'keep') return { done: { kind: 'kept', from: current.status, subscriber: current } };
      return { update: step.update, result: { kind: 'updated', from: current.status, subscriber: { ...current, ...step.update } } };
    },
    { action: 'saving their preferences' },
  );
}
