import { describe, expect, it } from 'vitest';
import { aiEnabled, loadConfig } from '../../lib/runtime/config';
import { DEFAULT_PORTS, localEnv } from '../../scripts/stack/local-env';

const AI_VARIABLES = ['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'];

describe('scripts/stack/local-env: the AI stage on the local stack', () => {
  it('is off without the model fake: no AI variable at all, so npm run dev and npm run demo stay keyword-only', () => {
    const env = localEnv(DEFAULT_PORTS);
    expect(Object.keys(env).filter((name) => AI_VARIABLES.includes(name))).toEqual([]);
    expect(aiEnabled(loadConfig(env))).toBe(false);
  });

  it('points Scout at the model fake when the stack has one, as a config that loads', () => {
    const env = localEnv({ ...DEFAULT_PORTS, modelFake: 3140 });
    expect(env).toMatchObject({ AI_BASE_URL: 'http://127.0.0.1:3140/v1', AI_MODEL: 'scout-fake-1' });
    expect(env.AI_API_KEY).toBeTruthy();
    const config = loadConfig(env);
    expect(aiEnabled(config)).toBe(true);
    expect(config.AI_BASE_URL).toBe('http://127.0.0.1:3140/v1');
  });

  it("lets the operator's own model setting win over the fake's", () => {
    const env = localEnv({ ...DEFAULT_PORTS, modelFake: 3140 }, { AI_MODEL: 'llama3.1:8b', AI_BASE_URL: 'http://localhost:11434/v1' });
    expect(env).toMatchObject({ AI_BASE_URL: 'http://localhost:11434/v1', AI_MODEL: 'llama3.1:8b' });
  });
});
