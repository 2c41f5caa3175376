import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../lib/runtime/config';
import { RETIRED_VARIABLE_NAMES } from '../../lib/runtime/retired-variables';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The Firebase SDK's own local-development variable: listed for the operator, but not Scout's. */
const SDK_VARIABLES = ['FIRESTORE_EMULATOR_HOST'];
/**
 * Every variable an operator needs, and no tuning knob: 25 for email alone; channels beyond email
 * added four (Scout's Telegram bot's token and username, its API's address for the local stand-in,
 * and the local-only loopback switch). Its webhook secret is derived, not set.
 */
const MOST_OF_SCOUTS_OWN = 29;

const schemaNames = Object.keys(configSchema.shape).sort();

const exampleNames = read('.env.example')
  .split('\n')
  .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
  .filter((name) => name !== undefined)
  .sort();

/** The first column of the table under "## Variables" in docs/configuration.md. */
function documentedNames(): string[] {
  const page = read('docs/configuration.md');
  const section = page.slice(page.indexOf('\n## Variables\n'), page.indexOf('\n## ', page.indexOf('\n## Variables\n') + 1));
  return section
    .split('\n')
    .map((line) => /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line)?.[1])
    .filter((name) => name !== undefined)
    .sort();
}

describe('the configuration an operator sees', () => {
  it('.env.example, docs/configuration.md and the config schema name the same variables', () => {
    expect(exampleNames).toEqual(schemaNames);
    expect(documentedNames()).toEqual(schemaNames);
  });

  it(`has at most ${MOST_OF_SCOUTS_OWN} variables of Scout's own`, () => {
    const own = schemaNames.filter((name) => !SDK_VARIABLES.includes(name));
    expect(own.length).toBeLessThanOrEqual(MOST_OF_SCOUTS_OWN);
    for (const name of SDK_VARIABLES) expect(schemaNames).toContain(name);
  });

  it('lists no retired variable as a setting, and says where each one went', () => {
    for (const name of RETIRED_VARIABLE_NAMES) {
      expect(schemaNames).not.toContain(name);
      expect(exampleNames).not.toContain(name);
    }
    const page = read('docs/configuration.md');
    const retired = page.slice(page.indexOf('\n## Retired variables\n'));
    for (const name of RETIRED_VARIABLE_NAMES) expect(retired, name).toContain(`\`${name}\``);
  });
});
