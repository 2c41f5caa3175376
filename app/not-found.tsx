export default function NotFound() {
  return (
    <section className="hero" aria-labelledby="not-found-title">
      <p className="eyebrow">404</p>
      <h1 id="not-found-title">Page not found</h1>
      <p className="lead">There is nothing at this address.</p>
      <p>
        <a href="/">Back to Scout</a>
      </p>
    </section>
  );
}
