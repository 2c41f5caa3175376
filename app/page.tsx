import { SignupForm } from './signup-form';
import { aiEnabled, configSchema } from '../lib/runtime/config';
import { productionDeps } from '../lib/wiring/production-deps';
import { timeZoneChoices } from '../lib/subscriptions/schedule-fields';
import { DEFAULT_TIMEZONE } from '../lib/subscribers/digest-schedule';
import { configuredSources } from '../lib/feeds/source-list';
import { landingFacts, type LandingFacts } from '../lib/subscriptions/landing-facts';
import { SampleCard } from '../lib/subscriptions/landing-sample';

const FEATURES = [
  {
    title: 'Watches the boards',
    text: 'Scout reads the job boards and feeds below every 15 minutes, around the clock, so you do not have to.',
  },
  {
    title: 'Only what fits',
    text: 'Postings are matched against your keywords, skip your excludes, and respect your minimum fixed price, hourly rate or salary when a posting states pay of that kind.',
  },
  {
    title: 'When it suits you',
    text: 'An email as soon as a posting fits, a digest of the best matches at your hour in your time zone (daily on the days you pick, or weekly), or no email at all: just your private feed.',
  },
  {
    title: 'Leave in one click',
    text: 'Every email carries a one-click unsubscribe link. Once you leave, nothing queued for you is sent.',
  },
];

/**
 * DIGEST_HOUR_UTC, what "Default" means on the hour select. A misconfigured deployment still shows
 * the page (its API answers 503 and names the variables), with the setting's own default.
 */
function defaultDigestHour(): number {
  try {
    return productionDeps().config.DIGEST_HOUR_UTC;
  } catch {
    return configSchema.shape.DIGEST_HOUR_UTC.parse(undefined);
  }
}

/** The AI verdict stage is configured: "About you" is on the form (nothing else reads it). A misconfigured deployment leaves it off. */
function askAbout(): boolean {
  try {
    return aiEnabled(productionDeps().config);
  } catch {
    return false;
  }
}

/** The deployment's sources and a sample posting; a misconfigured deployment still shows the page, without them. */
async function facts(): Promise<LandingFacts> {
  try {
    const { config, db } = productionDeps();
    return await landingFacts({ db, sources: configuredSources(config), now: new Date() });
  } catch {
    return { sources: [], sample: null };
  }
}

export default async function HomePage() {
  const { sources, sample } = await facts();
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <p className="eyebrow">Job alerts by email</p>
        <h1 id="hero-title">Job alerts that fit.</h1>
        <p className="lead">
          For developers, designers and freelancers who would rather not check job boards by hand: Scout emails you only the postings that
          fit, your keywords, none of your excludes, at or above your pay.
        </p>
        {sources.length > 0 ? (
          <p className="sources-line">
            <span className="sources-label">Reads </span>
            {sources.join(', ')}
          </p>
        ) : null}
      </section>

      <section id="signup" className="signup" aria-labelledby="signup-title">
        <h2 id="signup-title">Sign up</h2>
        <p className="signup-intro">Tell Scout what fits you. You can change it any time from a link in every email.</p>
        {/* The zone list is the server's (Intl.supportedValuesOf), passed down so the browser renders the same options. */}
        <SignupForm timeZones={timeZoneChoices(DEFAULT_TIMEZONE)} defaultDigestHour={defaultDigestHour()} askAbout={askAbout()} />
      </section>

      {sample ? (
        <section aria-labelledby="sample-title">
          <h2 id="sample-title" className="section-title">
            What arrives
          </h2>
          <SampleCard posting={sample} now={new Date()} />
        </section>
      ) : null}

      <section aria-labelledby="how-title">
        <h2 id="how-title" className="section-title">
          How it works
        </h2>
        <ul className="features">
          {FEATURES.map((feature) => (
            <li key={feature.title} className="feature">
              <h3>{feature.title}</h3>
              <p>{feature.text}</p>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
