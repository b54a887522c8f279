// The memory inspector's page. Memory content is untrusted: every value reaches the page through
// textContent (el() below turns strings into text nodes); nothing is ever parsed as HTML.
'use strict';

const state = { session: null };

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

async function api(route, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') query.set(k, v);
  const res = await fetch('/api/' + route + (query.toString() ? '?' + query : ''), { credentials: 'same-origin' });
  const body = await res.json().catch(() => ({ error: 'HTTP ' + res.status }));
  if (!res.ok) throw new Error(body.error || ('HTTP ' + res.status));
  return body;
}

function link(text, route, params, attrs) {
  return el('a', Object.assign({ href: href(route, params) }, attrs || {}), text);
}

function href(route, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  return '#/' + route + (q.toString() ? '?' + q : '');
}

function badge(status) {
  const s = String(status || '');
  const cls = 's-' + s.split(' ')[0];
  return el('span', { class: 'badge ' + cls, 'data-status': s }, s);
}

function fmt(t) { return t ? String(t).replace('T', ' ').replace(/\.\d+Z$/, 'Z') : ''; }

function main() { return document.getElementById('main'); }

function show(...nodes) {
  const m = main();
  m.replaceChildren(...nodes);
}

function fail(e) {
  show(el('p', { class: 'error', id: 'error' }, String(e.message || e)));
}

function setNav(route, user) {
  const nav = document.getElementById('nav');
  const where = document.getElementById('where');
  where.textContent = state.session ? 'tenant ' + state.session.tenant + (user ? ' / user ' + user : '') : '';
  if (!user) { nav.replaceChildren(link('Users', 'users', {}, { class: route === 'users' ? 'active' : '' })); return; }
  const items = [['Users', 'users'], ['Memory', 'memory'], ['As of', 'asof'], ['Turns', 'turns'], ['Log', 'log'], ['Audit', 'audit']];
  if (state.session && state.session.forgetting) items.push(['Forget', 'forget']);
  nav.replaceChildren(...items.map(([t, r]) => link(t, r, r === 'users' ? {} : { user }, { class: r === route ? 'active' : '', id: 'nav-' + r })));
}

// ------------------------------------------------------------------ paged tables

function pager(page, onMove) {
  const from = page.total === 0 ? 0 : page.offset + 1;
  const to = page.offset + page.items.length;
  return el('div', { class: 'pager' },
    el('button', { type: 'button', class: 'prev', disabled: page.offset === 0, onclick: () => onMove(Math.max(0, page.offset - page.limit)) }, 'Previous'),
    el('span', { class: 'range' }, from + '\u2013' + to + ' of ' + page.total),
    el('button', { type: 'button', class: 'next', disabled: to >= page.total, onclick: () => onMove(page.offset + page.limit) }, 'Next'));
}

function table(columns, rows, attrs) {
  return el('table', attrs || {},
    el('thead', {}, el('tr', {}, columns.map(c => el('th', { scope: 'col' }, c[0])))),
    el('tbody', {}, rows.map(r => el('tr', { 'data-key': r.key, 'data-id': r.id }, columns.map(c => {
      const v = c[1](r);
      return el('td', { class: c[2] || '' }, v);
    })))));
}

// ------------------------------------------------------------------ users

async function usersView(params) {
  setNav('users');
  const q = params.get('q') || '';
  const offset = Number(params.get('offset') || 0);
  const page = await api('users', { q, offset, limit: 50 });
  const filter = el('input', { type: 'text', id: 'user-filter', placeholder: 'filter users', value: q, 'aria-label': 'filter users' });
  filter.addEventListener('keydown', ev => { if (ev.key === 'Enter') location.hash = href('users', { q: filter.value }); });
  show(el('h2', {}, 'Users of tenant ' + state.session.tenant),
    el('div', { class: 'row' }, filter),
    pager(page, o => { location.hash = href('users', { q, offset: o }); }),
    el('ul', { id: 'users' }, page.items.map(u => el('li', {}, link(u.user, 'memory', { user: u.user }, { class: 'user-link' })))));
}

// ------------------------------------------------------------------ memory by layer

const SECTIONS = [['state', 'Session & task state'], ['persistent', 'Persistent records'], ['conflicts', 'Conflicts'], ['due', 'Due for re-verification']];

function recordColumns(user, section) {
  const cols = [
    ['Key', r => link(r.key, 'history', { user, scope: r.scope, key: r.key }, { class: 'key-link' })],
    ['Value', r => r.value, 'value'],
    ['v', r => r.version, 'num'],
    ['Status now', r => badge(r.now)],
    ['Held as', r => r.shownAs],
    ['Scope', r => r.scope],
    ['Kind', r => r.kind],
    ['Source', r => source(user, r)],
    ['Trust', r => r.trust],
    ['Access', r => r.access],
    ['Valid', r => (fmt(r.validFrom) || 'open') + ' \u2192 ' + (fmt(r.validTo) || 'open'), 'small'],
    ['Expires', r => fmt(r.expiresAt), 'small'],
  ];
  if (section === 'state') cols.splice(6, 0, ['Task', r => r.taskStatus ? r.taskStatus + ' (held by ' + r.heldBy + ')' : '']);
  if (state.session.forgetting) cols.push(['', r => link('forget\u2026', 'forget', { user, target: 'key', scope: r.scope, key: r.key }, { class: 'forget-link' })]);
  return cols;
}

// a source reference message:<session>#<index> links to that conversation's turns
function source(user, r) {
  const m = /^message:([^#]+)#(\d+)$/.exec(r.sourceRef || '');
  if (m) return [r.source + ' ', link('(' + m[1] + ' #' + m[2] + ')', 'turns', { user, session: m[1] }, { class: 'source-link' })];
  return r.sourceRef ? r.source + ' (' + r.sourceRef + ')' : r.source;
}

async function memoryView(params) {
  const user = params.get('user');
  setNav('memory', user);
  const section = params.get('section') || 'state';
  const q = params.get('q') || '';
  const offset = Number(params.get('offset') || 0);
  const page = await api('memory', { user, section, q, offset, limit: 50 });
  const go = p => { location.hash = href('memory', Object.assign({ user, section, q }, p)); };
  const tabs = el('div', { class: 'tabs', role: 'tablist' }, SECTIONS.map(([id, label]) =>
    el('button', { type: 'button', role: 'tab', id: 'tab-' + id, 'aria-selected': String(id === section), onclick: () => go({ section: id, q: '', offset: 0 }) }, label)));
  const filter = el('input', { type: 'text', id: 'memory-filter', placeholder: 'filter by key or value', value: q, 'aria-label': 'filter by key or value' });
  filter.addEventListener('keydown', ev => { if (ev.key === 'Enter') go({ q: filter.value, offset: 0 }); });
  const parts = [el('h2', {}, 'Memory of ' + user), tabs, el('div', { class: 'row' }, filter)];
  if (section === 'state' && page.tasks) {
    parts.push(el('h3', {}, 'Tasks'));
    parts.push(page.tasks.length === 0 ? el('p', { class: 'small' }, 'No tasks.') : table([
      ['Task', t => t.task], ['Title', t => t.title || ''], ['Status', t => badge(t.status === 'ended' ? 'archived' : t.status === 'active' ? 'current' : 'past')],
      ['Started in', t => t.session], ['Held by', t => t.heldBy], ['Changed', t => fmt(t.changedAt), 'small']], page.tasks, { id: 'tasks' }));
    parts.push(el('h3', {}, 'State'));
  }
  parts.push(pager(page, o => go({ offset: o })));
  parts.push(page.items.length === 0 ? el('p', { class: 'small', id: 'empty' }, 'Nothing here.')
    : table(recordColumns(user, section), page.items, { id: 'records', 'data-section': section }));
  show(...parts);
}

// ------------------------------------------------------------------ a key's history, drawn

function timeline(h) {
  const versions = h.versions;
  const now = Date.parse(h.now);
  const start = v => Date.parse(v.validFrom || v.recordedAt);
  const end = v => Date.parse(v.validTo || v.supersededAt || v.forgottenAt || h.now);
  let min = Math.min(...versions.map(v => Math.min(start(v), Date.parse(v.recordedAt))));
  let max = Math.max(now, ...versions.map(end));
  if (max - min < 60000) { min -= 30000; max += 30000; }
  const W = 960, left = 150, right = 30, lane = 34, top = 30;
  const H = top + versions.length * lane + 40;
  const x = t => left + (W - left - right) * (t - min) / (max - min);
  const root = svg('svg', { class: 'timeline', id: 'timeline', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'timeline of ' + h.key });
  root.append(svg('title', {}, 'Versions of ' + h.key + ' over time'));
  for (let i = 0; i <= 4; i++) {
    const t = min + (max - min) * i / 4;
    root.append(svg('line', { x1: x(t), x2: x(t), y1: top - 8, y2: H - 30, stroke: '#e3e7ef' }));
    root.append(svg('text', { x: x(t), y: H - 12, 'text-anchor': 'middle', 'font-size': 11, fill: '#5d6678' }, new Date(t).toISOString().replace('T', ' ').slice(0, 16)));
  }
  root.append(svg('line', { x1: x(now), x2: x(now), y1: top - 14, y2: H - 30, stroke: '#2957c7', 'stroke-dasharray': '4 3' }));
  root.append(svg('text', { x: x(now), y: top - 16, 'text-anchor': 'end', 'font-size': 11, fill: '#2957c7' }, 'now'));
  const colors = { current: '#1f8a4c', conflict: '#c0392b', superseded: '#8a8f99', 'needs-reverification': '#c77d0a', upcoming: '#6a4cc7', archived: '#7a6a55', forgotten: '#5d6678' };
  versions.forEach((v, i) => {
    const y = top + i * lane;
    const status = String(v.now || '').split(' ')[0];
    const g = svg('g', { class: 'version', 'data-version': v.version, 'data-status': status });
    g.append(svg('title', {}, 'v' + v.version + ' = ' + v.value + '\nrecorded ' + fmt(v.recordedAt) + ' by ' + v.writer
      + (v.supersededBy ? '\nsuperseded by ' + v.supersededBy + ' at ' + fmt(v.supersededAt) : '')
      + (v.forgottenAt ? '\n' + v.forgetMode + '-forgotten by ' + v.forgottenBy + ' at ' + fmt(v.forgottenAt) : '')));
    g.append(svg('text', { x: 8, y: y + 15, 'font-size': 12, fill: '#1d2330' }, 'v' + v.version + ' ' + clip(v.value || '(forgotten)', 16)));
    const x1 = x(start(v)), x2 = Math.max(x(end(v)), x1 + 3);
    g.append(svg('rect', { x: x1, y: y + 4, width: x2 - x1, height: 16, rx: 4, fill: colors[status] || '#8a8f99', opacity: v.value ? 1 : 0.45 }));
    g.append(svg('circle', { cx: x(Date.parse(v.recordedAt)), cy: y + 12, r: 4, fill: '#fff', stroke: '#1d2330' }));
    if (v.forgottenAt) g.append(svg('text', { x: x(Date.parse(v.forgottenAt)), y: y + 17, 'font-size': 14, fill: '#b3261e', 'text-anchor': 'middle' }, '\u2716'));
    root.append(g);
  });
  return root;
}

function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

async function historyView(params) {
  const user = params.get('user');
  setNav('memory', user);
  const h = await api('history', { user, scope: params.get('scope'), key: params.get('key') });
  show(el('h2', {}, 'History of ', el('code', { id: 'history-key' }, h.key), ' in ' + h.scope),
    timeline(h),
    el('p', { class: 'small' }, 'Each bar: when the version applied (its validity window, or until it was superseded or forgotten). Circle: when it was recorded. \u2716: forgotten.'),
    el('h3', {}, 'Versions'),
    table([
      ['v', v => v.version, 'num'], ['Value', v => v.value || '(forgotten)', 'value'], ['Status now', v => badge(v.now)],
      ['Recorded', v => fmt(v.recordedAt), 'small'], ['By', v => v.writer], ['Kind', v => v.kind], ['Source', v => v.source],
      ['Trust', v => v.trust], ['Verification', v => v.verification],
      ['Valid', v => (fmt(v.validFrom) || 'open') + ' \u2192 ' + (fmt(v.validTo) || 'open'), 'small'],
      ['Superseded by', v => v.supersededBy ? v.supersededBy + ' at ' + fmt(v.supersededAt) : ''],
      ['Conflicts with', v => v.conflictsWith || ''],
      ['Forgotten', v => v.forgottenAt ? v.forgetMode + ' by ' + v.forgottenBy + ' at ' + fmt(v.forgottenAt) : ''],
    ], h.versions, { id: 'versions' }),
    el('h3', {}, 'Events'),
    el('ul', { id: 'history-events' }, h.events.map(e => el('li', { class: 'text' }, e.text))));
}

// ------------------------------------------------------------------ as of

async function asOfView(params) {
  const user = params.get('user');
  setNav('asof', user);
  const at = params.get('at') || new Date().toISOString();
  const compare = params.get('compare') || '';
  const offset = Number(params.get('offset') || 0);
  const page = await api('asof', { user, at, compare, offset, limit: 50 });
  const first = Date.parse(page.first), last = Date.parse(page.last);
  const go = p => { location.hash = href('asof', Object.assign({ user, at, compare }, p)); };
  const when = el('input', { type: 'text', id: 'asof-at', value: page.at, 'aria-label': 'as of (UTC, ISO-8601)', size: 28 });
  const other = el('input', { type: 'text', id: 'asof-compare', value: compare, placeholder: 'compare with (optional)', 'aria-label': 'compare with', size: 28 });
  const slider = el('input', { type: 'range', id: 'asof-slider', min: 0, max: 1000, step: 1, 'aria-label': 'as of, on a time slider',
    value: Math.round(1000 * (Date.parse(page.at) - first) / Math.max(1, last - first)) });
  const sliderTime = () => new Date(first + (last - first) * Number(slider.value) / 1000).toISOString();
  let timer = null;
  slider.addEventListener('input', () => {
    when.value = sliderTime();
    clearTimeout(timer);
    timer = setTimeout(() => go({ at: sliderTime(), offset: 0 }), 250);
  });
  const submit = () => go({ at: when.value, compare: other.value, offset: 0 });
  [when, other].forEach(i => i.addEventListener('keydown', ev => { if (ev.key === 'Enter') submit(); }));
  const parts = [el('h2', {}, 'Memory of ' + user + ' as of ', el('span', { id: 'asof-shown' }, fmt(page.at))),
    el('div', { class: 'row' }, el('label', {}, 'As of ', when), el('label', {}, 'compare with ', other),
      el('button', { type: 'button', id: 'asof-go', onclick: submit }, 'Show')),
    el('div', { class: 'row' }, el('span', { class: 'small' }, fmt(page.first)), slider, el('span', { class: 'small' }, fmt(page.last))),
    pager(page, o => go({ offset: o })),
    page.items.length === 0 ? el('p', { class: 'small', id: 'empty' }, 'Nothing was remembered then.')
      : table([['Scope', r => r.scope], ['Key', r => link(r.key, 'history', { user, scope: r.scope, key: r.key })],
        ['Value', r => r.value, 'value'], ['v', r => r.version, 'num'], ['Kind', r => r.kind], ['Recorded', r => fmt(r.recordedAt), 'small']],
        page.items, { id: 'asof-items' })];
  if (page.diff) {
    parts.push(el('h3', {}, 'From ' + fmt(page.at) + ' to ' + fmt(page.compareTo)));
    parts.push(page.diff.length === 0 ? el('p', { class: 'small', id: 'diff-empty' }, 'No difference.') : table([
      ['Change', d => el('span', { class: 'diff-' + d.change }, d.change)], ['Scope', d => d.scope], ['Key', d => d.key],
      ['Before', d => d.before === undefined ? '' : d.before + ' (v' + d.beforeVersion + ')', 'value'],
      ['After', d => d.after === undefined ? '' : d.after + ' (v' + d.afterVersion + ')', 'value']], page.diff, { id: 'diff' }));
  }
  show(...parts);
}

// ------------------------------------------------------------------ turns

async function turnsView(params) {
  const user = params.get('user');
  setNav('turns', user);
  const session = params.get('session');
  const sessions = await api('sessions', { user });
  const list = el('div', { class: 'row', id: 'sessions' }, 'Conversations: ', sessions.sessions.map(s =>
    link(s.session + ' (' + s.messages + ' messages, ' + s.turns + ' turns)', 'turns', { user, session: s.session }, { class: 'session-link' })));
  if (!session) { show(el('h2', {}, 'Turns of ' + user), list); return; }
  const t = await api('turns', { user, session });
  const window = el('div', { id: 'window' }, el('h3', {}, 'Messages (window first, then the rest of the history)'),
    t.history.slice().sort((a, b) => (b.inWindow - a.inWindow) || (a.index - b.index)).map(m =>
      el('div', { class: 'msg ' + m.type + (m.inWindow ? '' : ' out'), 'data-index': m.index },
        el('div', { class: 'small' }, '#' + m.index + ' ' + m.type + (m.inWindow ? ' \u00b7 in window' : ' \u00b7 out of window') + (m.forgotten ? ' \u00b7 forgotten' : '')),
        el('div', { class: 'text' }, m.text))));
  const turns = t.turns.length === 0 ? el('p', { class: 'small' }, 'No turns kept for this conversation (turns are kept in memory since the memory started, and dropped by a forget).')
    : el('div', { id: 'turns' }, t.turns.map(turnCard));
  show(el('h2', {}, 'Turns of ' + user + ' in ', el('code', {}, session)), list, el('div', { class: 'cols' }, turns, window));
}

function itemColumns(cut) {
  const cols = [
    ['Layer', i => i.meta.layer], ['Status', i => badge(i.meta.status || '')],
    ['Item', i => i.meta.key ? i.meta.key + '@v' + i.meta.version : (i.meta.id || '')],
    ['Text', i => i.text, 'value'], ['Score', i => i.meta.score || '', 'num'], ['Why chosen', i => i.meta.why || '', 'small'],
    ['Chars', i => i.chars, 'num']];
  if (cut) cols.push(['Cut because', i => i.cutReason, 'small']);
  return cols;
}

function turnCard(turn) {
  return el('section', { class: 'card turn', 'data-turn': turn.turn },
    el('h3', {}, 'Turn ' + turn.turn + ' \u00b7 ' + fmt(turn.at)),
    el('p', {}, 'User asked: ', el('span', { class: 'text query' }, turn.query)),
    el('p', { class: 'small block-size' }, 'Block: ' + turn.blockChars + ' characters, about ' + turn.blockTokens + ' tokens; message sent: ' + turn.sentChars + ' characters; '
      + turn.used.length + ' item(s) used, ' + turn.cut.length + ' cut by the budget.'),
    turn.used.length ? table(itemColumns(false), turn.used, { class: 'used' }) : el('p', { class: 'small' }, 'Nothing was framed.'),
    turn.cut.length ? [el('h3', {}, 'Cut by the budget'), table(itemColumns(true), turn.cut, { class: 'cut' })] : [],
    el('details', { open: true }, el('summary', {}, 'The message as the model received it'), el('pre', { class: 'block sent' }, turn.sent)));
}

// ------------------------------------------------------------------ log and audit

async function logView(params) {
  const user = params.get('user');
  setNav('log', user);
  const f = { kind: params.get('kind') || '', session: params.get('session') || '', from: params.get('from') || '', to: params.get('to') || '' };
  const offset = Number(params.get('offset') || 0);
  const page = await api('log', Object.assign({ user, offset, limit: 100 }, f));
  const kind = el('select', { id: 'log-kind', 'aria-label': 'kind' }, el('option', { value: '' }, 'every kind'),
    page.kinds.map(k => el('option', { value: k, selected: k === f.kind }, k)));
  const session = el('input', { type: 'text', id: 'log-session', value: f.session, placeholder: 'conversation', 'aria-label': 'conversation' });
  const from = el('input', { type: 'text', id: 'log-from', value: f.from, placeholder: 'from (UTC)', 'aria-label': 'from' });
  const to = el('input', { type: 'text', id: 'log-to', value: f.to, placeholder: 'to (UTC)', 'aria-label': 'to' });
  const apply = () => { location.hash = href('log', { user, kind: kind.value, session: session.value, from: from.value, to: to.value }); };
  [session, from, to].forEach(i => i.addEventListener('keydown', ev => { if (ev.key === 'Enter') apply(); }));
  kind.addEventListener('change', apply);
  show(el('h2', {}, 'Event log of ' + user),
    el('div', { class: 'row' }, kind, session, from, to, el('button', { type: 'button', id: 'log-apply', onclick: apply }, 'Filter')),
    pager(page, o => { location.hash = href('log', Object.assign({ user, offset: o }, f)); }),
    table([['#', e => e.seq, 'num'], ['At', e => fmt(e.at), 'small'], ['By', e => e.actor], ['Kind', e => e.kind],
      ['Conversation', e => e.session || ''], ['Event', e => e.text, 'value']], page.items, { id: 'log' }));
}

async function auditView(params) {
  const user = params.get('user');
  setNav('audit', user);
  const a = await api('audit', { user });
  show(el('h2', {}, 'Audit of ' + user),
    el('p', { id: 'audit-verdict', class: a.consistent ? 'ok' : 'error' }, a.consistent ? 'Consistent: the state equals a replay of the log (seq ' + a.seq + ').' : 'NOT consistent: ' + a.replayDifference),
    el('ul', { id: 'audit-lines' }, a.lines.map(l => el('li', { class: 'text' }, l))));
}

// ------------------------------------------------------------------ forget

async function forgetView(params) {
  const user = params.get('user');
  setNav('forget', user);
  if (!state.session.forgetting) { show(el('p', { id: 'read-only' }, 'This inspector is read-only.')); return; }
  const target = el('select', { id: 'forget-target', 'aria-label': 'what to forget' },
    [['key', 'a key (every version)'], ['record', 'a record (by id: its key, every version)'], ['conversation', 'a conversation (state, tasks, messages)'], ['user', 'the whole user']]
      .map(([v, t]) => el('option', { value: v, selected: v === (params.get('target') || 'key') }, t)));
  const scope = el('input', { type: 'text', id: 'forget-scope', value: params.get('scope') || 'persistent', 'aria-label': 'scope' });
  const key = el('input', { type: 'text', id: 'forget-key', value: params.get('key') || '', 'aria-label': 'key' });
  const record = el('input', { type: 'text', id: 'forget-record', value: params.get('record') || '', 'aria-label': 'record id' });
  const session = el('input', { type: 'text', id: 'forget-session', value: params.get('session') || '', 'aria-label': 'conversation' });
  const hard = el('input', { type: 'checkbox', id: 'forget-hard' });
  const result = el('div', { id: 'forget-result' });
  const fields = el('div', {});
  const layout = () => {
    const t = target.value;
    fields.replaceChildren(...(t === 'key' ? [el('label', {}, 'Scope ', scope), ' ', el('label', {}, 'Key ', key)]
      : t === 'record' ? [el('label', {}, 'Record id ', record)] : t === 'conversation' ? [el('label', {}, 'Conversation ', session)] : []));
  };
  target.addEventListener('change', layout);
  layout();
  const describe = () => {
    const t = target.value;
    const what = t === 'key' ? 'key ' + key.value + ' in ' + scope.value + ' (every version)'
      : t === 'record' ? 'record ' + record.value + ' (its key, every version)' : t === 'conversation' ? 'conversation ' + session.value + ' (its state, tasks and messages)' : 'everything user ' + user + ' has';
    return 'Forget ' + what + ', ' + (hard.checked ? 'HARD: values scrubbed from the stored log too.' : 'soft: tombstones stay in the log.');
  };
  const ask = () => {
    const dialog = el('dialog', { id: 'confirm-dialog', 'aria-label': 'confirm forget' },
      el('p', { id: 'confirm-text' }, describe()),
      el('div', { class: 'row' },
        el('button', { type: 'button', class: 'danger', id: 'confirm-forget', onclick: async () => { dialog.close(); dialog.remove(); await send(); } }, 'Forget'),
        el('button', { type: 'button', id: 'confirm-cancel', onclick: () => { dialog.close(); dialog.remove(); } }, 'Cancel')));
    document.body.append(dialog);
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  };
  const send = async () => {
    const body = { user, target: target.value, mode: hard.checked ? 'hard' : 'soft', scope: scope.value, key: key.value, record: record.value, session: session.value };
    const res = await fetch('/api/forget', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': state.session.csrf }, body: JSON.stringify(body) });
    const r = await res.json().catch(() => ({ error: 'HTTP ' + res.status }));
    if (!res.ok) { result.replaceChildren(el('p', { class: 'error' }, r.error || 'HTTP ' + res.status)); return; }
    result.replaceChildren(el('div', { class: 'card', id: 'receipt' }, el('h3', {}, 'Receipt'),
      table([['Field', x => x[0]], ['Value', x => x[1], 'value']], [
        ['forgot', r.what], ['mode', r.mode], ['by', r.by], ['records', r.records], ['keys', (r.keys || []).join(', ')],
        ['messages', r.messages], ['messages redacted', r.redacted], ['events scrubbed', r.eventsScrubbed],
        ['derived data', Object.entries(r.derived || {}).map(([k, v]) => k + ': ' + v).join(', ')]].map(x => Object.assign(x, { key: x[0] })))));
  };
  show(el('h2', {}, 'Forget for ' + user),
    el('div', { class: 'card' }, el('div', { class: 'row' }, el('label', {}, 'What ', target)), fields,
      el('div', { class: 'row' }, el('label', {}, hard, ' hard (scrub the values from the stored log)')),
      el('button', { type: 'button', class: 'danger', id: 'forget-ask', onclick: ask }, 'Forget\u2026')),
    result);
}

// ------------------------------------------------------------------ routing

const ROUTES = { users: usersView, memory: memoryView, history: historyView, asof: asOfView, turns: turnsView, log: logView, audit: auditView, forget: forgetView };

async function route() {
  const h = location.hash.replace(/^#\/?/, '');
  const [name, query] = h.split('?');
  const view = ROUTES[name] || usersView;
  const params = new URLSearchParams(query || '');
  try {
    if (!state.session) {
      state.session = await api('session');
      const mode = document.getElementById('mode');
      mode.textContent = state.session.forgetting ? 'forgetting enabled' : 'read-only';
      if (state.session.forgetting) mode.classList.add('forgetting');
    }
    if (name !== 'users' && name !== '' && ROUTES[name] && !params.get('user')) throw new Error('choose a user first');
    await view(params);
    document.body.setAttribute('data-view', name || 'users');
  } catch (e) {
    fail(e);
  }
  document.body.setAttribute('data-ready', String(Date.now()));
}

window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', route);
