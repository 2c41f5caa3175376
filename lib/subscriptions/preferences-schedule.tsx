import type { PreferenceField } from '../subscribers/preferences-schema';
import {
  CADENCE_CHOICES,
  FOR_DAILY,
  FOR_DIGEST,
  FOR_WEEKLY,
  HourSelect,
  TimeZoneSelect,
  timeZoneChoices,
  WeekdayChecks,
  WeeklyDaySelect,
} from './schedule-fields';

/**
 * The preferences form's cadence and schedule: the mode radios, then the time zone, digest hour,
 * weekdays (daily) and weekly day, each with its error above it as the rest of that form has it.
 * The controls are the signup form's (schedule-fields.tsx); which ones show for a cadence is CSS.
 */

type ScheduleField = Extract<PreferenceField, 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>;

export const SCHEDULE_LABELS: Record<ScheduleField, string> = {
  mode: 'How often to email you',
  timezone: 'Your time zone',
  digestHour: 'Digest hour (your time)',
  weekdays: 'Days a digest may come',
  weeklyDay: 'Day of the weekly digest',
};

/** Where the error summary's link for each field lands. */
export const SCHEDULE_TARGETS: Record<ScheduleField, string> = {
  mode: 'mode-instant',
  timezone: 'timezone',
  digestHour: 'digestHour',
  weekdays: 'weekdays-mon',
  weeklyDay: 'weeklyDay',
};

export type ScheduleValues = Record<ScheduleField, string>;

/** A field's error under it, announced with the field (aria-describedby names its id). */
export function ErrorLine({ field, error }: { field: string; error: string | undefined }) {
  return error ? (
    <p className="field-error" id={`${field}-error`}>
      <span className="visually-hidden">Error: </span>
      {error}
    </p>
  ) : null;
}

const aria = (field: string, error: string | undefined, hint = false) => {
  const ids = [hint ? `${field}-hint` : null, error ? `${field}-error` : null].filter(Boolean);
  return { 'aria-invalid': error ? true : undefined, 'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined };
};

export function ScheduleFields(input: {
  values: ScheduleValues;
  errors: Partial<Record<ScheduleField, string>>;
  defaultDigestHour: number;
}) {
  const { values, errors } = input;
  return (
    <>
      <fieldset>
        <legend>{SCHEDULE_LABELS.mode}</legend>
        <ErrorLine field="mode" error={errors.mode} />
        {CADENCE_CHOICES.map((choice) => {
          const id = `mode-${choice.mode}`;
          return (
            <div className="choice" key={choice.mode}>
              <input
                type="radio"
                id={id}
                name="mode"
                value={choice.mode}
                aria-describedby={errors.mode ? `${id}-hint mode-error` : `${id}-hint`}
                defaultChecked={values.mode === choice.mode}
                aria-invalid={errors.mode ? true : undefined}
                required
              />
              <div>
                <label htmlFor={id}>{choice.label}</label>
                <p className="hint" id={`${id}-hint`}>
                  {choice.hint.charAt(0).toUpperCase() + choice.hint.slice(1)}.
                </p>
              </div>
            </div>
          );
        })}
      </fieldset>
      <div className={`field ${FOR_DIGEST}`}>
        <label htmlFor="timezone">{SCHEDULE_LABELS.timezone}</label>
        <p className="hint" id="timezone-hint">
          The digest hour and days are read in this zone.
        </p>
        <ErrorLine field="timezone" error={errors.timezone} />
        <TimeZoneSelect
          id="timezone"
          value={values.timezone}
          zones={timeZoneChoices(values.timezone)}
          browserZoneNote="Set to your browser’s time zone; it is saved when you save."
          {...aria('timezone', errors.timezone, true)}
        />
      </div>
      <div className={`field ${FOR_DIGEST}`}>
        <label htmlFor="digestHour">{SCHEDULE_LABELS.digestHour}</label>
        <ErrorLine field="digestHour" error={errors.digestHour} />
        <HourSelect
          id="digestHour"
          value={values.digestHour}
          defaultHour={input.defaultDigestHour}
          {...aria('digestHour', errors.digestHour)}
        />
      </div>
      <fieldset className={`field ${FOR_DAILY}`}>
        <legend>{SCHEDULE_LABELS.weekdays}</legend>
        <ErrorLine field="weekdays" error={errors.weekdays} />
        <WeekdayChecks idPrefix="weekdays" checked={values.weekdays.split(',')} {...aria('weekdays', errors.weekdays)} />
      </fieldset>
      <div className={`field ${FOR_WEEKLY}`}>
        <label htmlFor="weeklyDay">{SCHEDULE_LABELS.weeklyDay}</label>
        <ErrorLine field="weeklyDay" error={errors.weeklyDay} />
        <WeeklyDaySelect id="weeklyDay" value={values.weeklyDay} {...aria('weeklyDay', errors.weeklyDay)} />
      </div>
    </>
  );
}
