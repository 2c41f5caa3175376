/*
 * Scout's form script for the pages route handlers render (the preferences page; lib/http/form-script.ts).
 * The page works without it: the Preview button posts the form and the page comes back with the
 * preview. With it:
 *   - the time zone select starts at the browser's own zone while it still shows the default (UTC);
 *   - the preview panel follows the typing: 400 ms (PREVIEW_DEBOUNCE_MS in lib/preview/preview.ts)
 *     after the last change to a field a preview reads, one POST /api/preview as JSON; its answer's
 *     `html` (the panel's content, rendered and escaped on the server by the panel's component)
 *     replaces the live region's content, so a screen reader hears it. A request still in flight
 *     is aborted by the next one; the Preview button asks at once instead of loading a page.
 * The landing page does the same in its React component (app/signup-form.tsx).
 */
(function () {
  'use strict';
  var DEBOUNCE_MS = 400;
  var FIELDS = [
    'keywords',
    'excludes',
    'minFixed',
    'minHourly',
    'minYearly',
    'minCurrency',
    'minBudget',
    'mode',
    'timezone',
    'digestHour',
    'weekdays',
    'weeklyDay',
  ];
  var DEFAULT_ZONE = 'UTC';

  function preselectBrowserZone(form) {
    var select = form.querySelector('select[data-browser-zone]');
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!select || !zone || select.value !== DEFAULT_ZONE || zone === DEFAULT_ZONE) return;
    var known = Array.prototype.some.call(select.options, function (option) {
      return option.value === zone;
    });
    if (!known) select.add(new Option(zone.replace(/_/g, ' '), zone), 1);
    select.value = zone;
    var hint = document.getElementById(select.id + '-hint');
    if (hint) hint.textContent += ' Set to your browser’s time zone; it is saved when you save.';
  }

  function fieldsOf(form) {
    var data = new FormData(form);
    var fields = {};
    FIELDS.forEach(function (name) {
      if (name === 'weekdays') {
        var days = data.getAll(name);
        if (days.length > 0) fields[name] = days;
      } else if (data.has(name)) fields[name] = data.get(name);
    });
    return fields;
  }

  function enhance(form) {
    preselectBrowserZone(form);
    var region = form.querySelector('[data-preview-region]');
    if (!region) return;
    var timer = null;
    var inFlight = null;

    function show(html) {
      region.innerHTML = html;
      region.removeAttribute('aria-busy');
    }

    function unavailable() {
      var line = document.createElement('p');
      line.className = 'field-error';
      line.textContent = 'The preview could not be loaded. Your form still works: try Preview again in a minute.';
      region.replaceChildren(line);
      region.removeAttribute('aria-busy');
    }

    function preview() {
      clearTimeout(timer);
      if (inFlight) inFlight.abort();
      var controller = new AbortController();
      inFlight = controller;
      region.setAttribute('aria-busy', 'true');
      fetch('/api/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(fieldsOf(form)),
        signal: controller.signal,
      })
        .then(function (response) {
          return response.json();
        })
        .then(function (body) {
          if (inFlight !== controller) return;
          inFlight = null;
          if (body && typeof body.html === 'string') show(body.html);
          else unavailable();
        })
        .catch(function () {
          if (inFlight !== controller) return;
          inFlight = null;
          unavailable();
        });
    }

    function changed(event) {
      if (FIELDS.indexOf(event.target && event.target.name) < 0) return;
      clearTimeout(timer);
      timer = setTimeout(preview, DEBOUNCE_MS);
    }
    form.addEventListener('input', changed);
    form.addEventListener('change', changed);

    var button = form.querySelector('button[name="preview"]');
    if (button)
      button.addEventListener('click', function (event) {
        event.preventDefault();
        preview();
      });
  }

  Array.prototype.forEach.call(document.querySelectorAll('form[data-preview-form]'), enhance);
})();
