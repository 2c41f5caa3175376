import { DEFAULT_TIMEZONE } from './digest-schedule';

/**
 * Instants as a subscriber reads them: in their own time zone (`timezone` on users/, UTC when they
 * chose none), named, so "09:00 CET" is never taken for UTC. The archive's dates are written so.
 */

type Formats = { minute: Intl.DateTimeFormat; day: Intl.DateTimeFormat };
// A page formats a handful of zones; each zone's formats are built once, the cache bounded all the same.
const formats = new Map<string, Formats>();
const MAX_ZONES = 500;

function formatsIn(timeZone: string): Formats {
  let known = formats.get(timeZone);
  if (!known) {
    let zone = timeZone;
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    } catch {
      // A zone this runtime does not know (stored before a tz database update): UTC, said as such.
      zone = DEFAULT_TIMEZONE;
    }
    known = {
      minute: new Intl.DateTimeFormat('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: zone,
        timeZoneName: 'short',
      }),
      day: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: zone }),
    };
    if (formats.size >= MAX_ZONES) formats.clear();
    formats.set(timeZone, known);
  }
  return known;
}

/** "30 Nov 2026, 09:00 CET": a minute in the zone, with the zone's short name. */
export const formatLocalMinute = (date: Date, timeZone: string) => formatsIn(timeZone).minute.format(date);

/** "28 Nov 2026": the day it was in the zone. */
export const formatLocalDay = (date: Date, timeZone: string) => formatsIn(timeZone).day.format(date);
