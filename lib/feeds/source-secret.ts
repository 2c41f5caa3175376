import { inspect } from 'node:util';

const SHOWN = '[secret]';

/**
 * A secret in a source's params (an Upwork client secret, a refresh token). SOURCES holds them,
 * and a source is shown in many places (the ops page, logs, run stats, errors), so the value is
 * kept where no serialiser looks: JSON, String() and util.inspect all see `[secret]`, and only
 * `reveal()`, at the one place that sends it, gives the value.
 */
export class SourceSecret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return SHOWN;
  }

  toString(): string {
    return SHOWN;
  }

  [inspect.custom](): string {
    return SHOWN;
  }
}
