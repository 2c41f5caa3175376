import { DEFAULT_TIMEZONE, WEEKDAYS } from '../subscribers/digest-schedule';
import { DAY_NAMES } from '../subscribers/describe-schedule';
import type { DeliveryMode } from '../subscribers/subscriber';

/**
 * The schedule's controls, shared by the signup form and the preferences form (each wraps them in
 * its own label, hint and error markup): the cadence choices, the time zone, the digest hour, the
 * weekdays of a daily digest and the day of a weekly one. Plain controls that post as they are,
 * so the forms work without JavaScript. Which of them a cadence uses is shown by CSS alone
 * (scout.css, `.for-digest`, `.for-daily`, `.for-weekly`, keyed on the checked mode with :has()):
 * no script is needed to hide what does not apply, and a browser without :has() shows them all.
 * No hooks: rendered to static markup only.
 */

/** The CSS classes that tie a control's field to the cadences that use it. */
export const FOR_DIGEST = 'for-digest';
export const FOR_DAILY = 'for-daily';
export const FOR_WEEKLY = 'for-weekly';

/** The cadences a subscriber may choose, in the order the forms offer them. */
export const CADENCE_CHOICES: readonly { mode: DeliveryMode; label: string; hint: string }[] = [
  { mode: 'instant', label: 'Instantly', hint: 'an email as soon as a posting fits' },
  { mode: 'daily', label: 'Once a day', hint: 'one digest of the best matches, at your hour, on the days you choose' },
  { mode: 'weekly', label: 'Once a week', hint: 'one digest of the week’s best matches, on the day you choose' },
  { mode: 'feed', label: 'No email', hint: 'matches go only to your private feed and archive' },
];

export const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

type ControlAria = { 'aria-invalid'?: boolean; 'aria-describedby'?: string; autoFocus?: boolean };

/**
 * The zones the select offers: the runtime's IANA list (Intl.supportedValuesOf, on the server, so
 * the page renders the same list wherever it is hydrated), UTC first, and `current` whatever its
 * spelling, so a stored or typed zone is always shown selected.
 */
export function timeZoneChoices(current: string): string[] {
  const zones = [DEFAULT_TIMEZONE, ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== DEFAULT_TIMEZONE)];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}

/**
 * The time zone select. `data-browser-zone` marks it for the form script (lib/client): while it
 * still shows the default (UTC), it selects the browser's own zone (Intl.DateTimeFormat().resolvedOptions())
 * and adds `browserZoneNote`, when given, to the select's hint (`<id>-hint`).
 */
export function TimeZoneSelect(input: { id: string; value: string; zones: readonly string[]; browserZoneNote?: string } & ControlAria) {
  const { id, value, zones, browserZoneNote, ...aria } = input;
  return (
    <select
      id={id}
      name="timezone"
      defaultValue={value || DEFAULT_TIMEZONE}
      data-browser-zone=""
      data-browser-zone-note={browserZoneNote}
      {...aria}
    >
      {zones.map((zone) => (
        <option key={zone} value={zone}>
          {zone.replaceAll('_', ' ')}
        </option>
      ))}
    </select>
  );
}

/** 00:00–23:00 in the subscriber's zone; blank is the deployment's default hour (DIGEST_HOUR_UTC, read in their zone). */
export function HourSelect(input: { id: string; value: string; defaultHour: number } & ControlAria) {
  const { id, value, defaultHour, ...aria } = input;
  return (
    <select id={id} name="digestHour" defaultValue={value} {...aria}>
      <option value="">Default, {hourLabel(defaultHour)}</option>
      {Array.from({ length: 24 }, (_, hour) => (
        <option key={hour} value={String(hour)}>
          {hourLabel(hour)}
        </option>
      ))}
    </select>
  );
}

/** One checkbox per weekday, posted as repeated `weekdays` values (the schema reads them as a list). */
export function WeekdayChecks(input: { idPrefix: string; checked: readonly string[] } & ControlAria) {
  const { idPrefix, checked, autoFocus, ...aria } = input;
  return (
    <div className="weekdays">
      {WEEKDAYS.map((day, i) => (
        <span key={day} className="weekday">
          <input
            type="checkbox"
            id={`${idPrefix}-${day}`}
            name="weekdays"
            value={day}
            defaultChecked={checked.includes(day)}
            autoFocus={(autoFocus && i === 0) || undefined}
            {...aria}
          />
          <label htmlFor={`${idPrefix}-${day}`}>{DAY_NAMES[day].slice(0, 3)}</label>
        </span>
      ))}
    </div>
  );
}

export function WeeklyDaySelect(input: { id: string; value: string } & ControlAria) {
  const { id, value, ...aria } = input;
  return (
    <select id={id} name="weeklyDay" defaultValue={value} {...aria}>
      {WEEKDAYS.map((day) => (
        <option key={day} value={day}>
          {DAY_NAMES[day]}
        </option>
      ))}
    </select>
  );
}
