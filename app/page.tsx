import { SignupForm } from './signup-form';

const FEATURES = [
  {
    title: 'Watches the feeds',
    text: 'Scout checks job feeds (RSS, Atom and JSON Feed) around the clock, so you do not have to.',
  },
  {
    title: 'Only what fits',
    text: 'Postings are matched against your keywords, skip your excludes, and respect your minimum budget when a posting states one.',
  },
  {
    title: 'Instantly or once a day',
    text: 'Get an email as soon as a posting fits, or one daily digest of the best matches at 08:00 UTC.',
  },
  {
    title: 'Leave in one click',
    text: 'Every email carries a one-click unsubscribe link. Once you leave, nothing queued for you is sent.',
  },
];

export default function HomePage() {
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <p className="eyebrow">Job alerts by email</p>
        <h1 id="hero-title">Job alerts that fit.</h1>
        <p className="lead">
          Scout watches job feeds and emails you only the postings that fit you: your keywords, none of your excludes, at or above your
          budget.
        </p>
      </section>

      <section id="signup" className="signup" aria-labelledby="signup-title">
        <h2 id="signup-title">Sign up</h2>
        <p className="signup-intro">Tell Scout what fits you. You can change it any time from a link in every email.</p>
        <SignupForm />
      </section>

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
