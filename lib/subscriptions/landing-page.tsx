import { Page, pageResponse } from '../http/page';
import type { Firestore } from 'firebase-admin/firestore';
import { aiEnabled, configSchema, type Config } from '../runtime/config';
import { configuredSources } from '../feeds/source-list';
import { DEFAULT_TIMEZONE } from '../subscribers/digest-schedule';
import { landingFacts, type LandingFacts } from './landing-facts';
import { SampleCard } from './landing-sample';
import { SignupFormView } from './signup-form';
import { emptySignupValues } from './signup-form-values';
import { timeZoneChoices } from './schedule-fields';

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

export type LandingPageProps = LandingFacts & {
  now: Date;
  /** DIGEST_HOUR_UTC: what "Default" means on the hour select. */
  defaultDigestHour: number;
  /** The AI verdict stage is configured: "About you" is on the form (nothing else reads it). */
  askAbout: boolean;
};

/**
 * GET /: what Scout is, whom it is for, the sources it reads, a real posting as the emails' card,
 * and the signup form. The form works as it is (it posts to /api/signup, its Preview button to
 * /api/preview); the form script (lib/client) makes it answer in place. The section around the
 * form is where the script puts the server's answer (`data-signup-region`).
 */
export function LandingPage({ sources, sample, now, defaultDigestHour, askAbout }: LandingPageProps) {
  return (
    <Page
      title="Job alerts that fit"
      layout="site"
      formScript
      description="Scout watches job feeds and emails you only the postings that fit you, instantly or as one daily digest."
    >
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
        <div data-signup-region="">
          <SignupFormView
            values={emptySignupValues}
            errors={{}}
            askAbout={askAbout}
            timeZones={timeZoneChoices(DEFAULT_TIMEZONE)}
            defaultDigestHour={defaultDigestHour}
          />
        </div>
      </section>

      {sample ? (
        <section aria-labelledby="sample-title">
          <h2 id="sample-title" className="section-title">
            What arrives
          </h2>
          <SampleCard posting={sample} now={now} />
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
    </Page>
  );
}

/**
 * The landing page for this request, read fresh each time (the sources, the week's sample).
 * `deps` builds the app's dependencies (productionDeps) and throws when the deployment is
 * misconfigured; the page still shows then (its API answers 503 and names the variables): with the
 * settings' own defaults, without About, sources or sample.
 */
export async function landingPageResponse(input: { deps: () => { config: Config; db: Firestore }; now: Date }): Promise<Response> {
  const { now } = input;
  let page: LandingPageProps;
  try {
    const { config, db } = input.deps();
    const facts = await landingFacts({ db, sources: configuredSources(config), now }).catch(() => ({ sources: [], sample: null }));
    page = { ...facts, now, defaultDigestHour: config.DIGEST_HOUR_UTC, askAbout: aiEnabled(config) };
  } catch {
    page = { sources: [], sample: null, now, defaultDigestHour: configSchema.shape.DIGEST_HOUR_UTC.parse(undefined), askAbout: false };
  }
  return pageResponse(<LandingPage {...page} />, { status: 200, indexable: true });
}
