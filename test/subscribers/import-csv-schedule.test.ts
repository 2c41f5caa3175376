import { describe, expect, it } from 'vitest';
import { parseSubscribersCsv } from '../../lib/subscribers/import-csv';

describe('an import carries each subscriber’s digest schedule', () => {
  it('reads timezone, digest_hour, weekdays and weekly_day, canonical and validated; a row without them keeps what is stored', () => {
    const rows = parseSubscribersCsv(
      [
        'email,keywords,mode,timezone,digest_hour,weekdays,weekly_day',
        'ada@example.com,react,daily,america/new_york,9,mon;tue;wed;thu;fri,',
        'bo@example.com,go,weekly,Europe/Berlin,18,,fri',
        'cy@example.com,rust,daily,,,,',
        'di@example.com,rust,daily,Mars/Base,,,',
        'ed@example.com,rust,daily,UTC,24,,',
      ].join('\n'),
    );
    expect(rows[0].input).toMatchObject({
      mode: 'daily',
      timezone: 'America/New_York',
      digestHour: 9,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
    });
    expect(rows[1].input).toMatchObject({ mode: 'weekly', timezone: 'Europe/Berlin', digestHour: 18, weeklyDay: 'fri' });
    expect(rows[2].input).not.toHaveProperty('timezone');
    expect(rows[2].input).not.toHaveProperty('digestHour');
    expect(rows[3].error).toMatch(/^timezone: must be a time zone name/);
    expect(rows[4].error).toMatch(/^digestHour: must be an hour from 0 to 23/);
  });
});
