// subagent-tck matrix: filtering. The table is whole without this script; it only hides rows
// and columns. The filters live in the address's fragment (#family=TF&capability=toolFilter),
// so a filtered view can be linked to.
(function () {
  'use strict';
  const form = document.getElementById('filters');
  const table = document.getElementById('matrix');
  if (!form || !table) return;
  const FIELDS = ['family', 'capability', 'edition', 'implementation'];
  const FAILING = new Set(['fail', 'expected-fail', 'error', 'unexpected-pass']);

  function wanted() {
    const out = {};
    for (const name of FIELDS) out[name] = form.elements[name].value;
    out.failing = form.elements.failing.checked;
    return out;
  }

  function columnShown(el, f) {
    return (!f.edition || el.dataset.edition === f.edition) &&
      (!f.implementation || el.dataset.implementation === f.implementation);
  }

  function apply() {
    const f = wanted();
    for (const el of document.querySelectorAll('[data-column]')) {
      el.classList.toggle('hidden-by-filter', !columnShown(el, f));
    }
    for (const group of table.querySelectorAll('thead th[data-group]')) {
      const n = table.querySelectorAll(
        'thead th[data-column][data-implementation="' + CSS.escape(group.dataset.group) + '"]:not(.hidden-by-filter)').length;
      group.colSpan = Math.max(n, 1);
      group.classList.toggle('hidden-by-filter', n === 0);
    }
    let shown = 0;
    for (const row of table.tBodies[0].rows) {
      const d = row.dataset;
      let show = (!f.family || d.family === f.family) &&
        (!f.capability || d.capability === f.capability) &&
        (!f.edition || !d.edition || d.edition === f.edition);
      if (show && f.failing) {
        show = Array.from(row.querySelectorAll('td:not(.hidden-by-filter)'))
          .some((td) => FAILING.has(td.dataset.outcome));
      }
      row.classList.toggle('hidden-by-filter', !show);
      if (show) shown += 1;
    }
    form.elements.shown.value = shown + ' of ' + table.tBodies[0].rows.length + ' rules';
    const params = new URLSearchParams();
    for (const name of FIELDS) if (f[name]) params.set(name, f[name]);
    if (f.failing) params.set('failing', '1');
    const fragment = params.toString();
    if (fragment || location.hash.includes('=')) {
      try {
        history.replaceState(null, '', '#' + fragment);
      } catch (e) {  // a browser that refuses it for a page opened from disk
        location.replace('#' + fragment);
      }
    }
  }

  function restore() {
    if (!location.hash.includes('=')) return;
    const params = new URLSearchParams(location.hash.slice(1));
    for (const name of FIELDS) {
      const select = form.elements[name];
      const value = params.get(name) || '';
      if (Array.from(select.options).some((o) => o.value === value)) select.value = value;
    }
    form.elements.failing.checked = params.get('failing') === '1';
  }

  form.hidden = false;
  restore();
  form.addEventListener('change', apply);
  apply();
}());
