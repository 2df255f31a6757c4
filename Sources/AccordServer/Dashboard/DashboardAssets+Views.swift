extension DashboardAssets {
    /// `views.js`: the overview, documents, document and people views, the hash router
    /// (`#/overview`, `#/documents`, `#/document/<id>`, `#/people`) and sign-in.
    static let views = #"""
'use strict';
(() => {
  const { api, el, append, clear, chart, formatNumber, formatBytes, formatTime, Live, download, coalesced } = Dash;
  const HISTORY = 900;
  const state = { samples: [], view: null, live: null, table: { q: '', sort: 'updated', order: 'desc', page: 0, pageSize: 50 } };
  const root = () => document.getElementById('view');

  function showError(target, error) {
    const text = error && error.text ? error.text : String(error && error.message || error);
    clear(target).append(el('p', { class: 'error', role: 'alert' }, text));
    if (error && (error.status === 401 || error.status === 403)) signOut(text);
  }

  // ---- Overview -------------------------------------------------------------
  const overview = {
    title: 'Overview',
    render() {
      this.box = el('div');
      root().append(el('h2', {}, 'Overview'), el('p', { class: 'muted' }, 'Last 15 minutes, one sample a second, streamed live.'), this.box);
      this.draw();
    },
    draw() {
      const s = state.samples;
      const pick = (key) => s.map((x) => x[key]);
      const totals = (key) => {
        const sum = {};
        for (const sample of s) for (const [name, n] of Object.entries(sample[key] || {})) sum[name] = (sum[name] || 0) + n;
        return sum;
      };
      const counts = (caption, sums) => {
        const names = Object.keys(sums).sort();
        return el('div', { class: 'panel' }, el('h3', {}, caption),
          names.length === 0 ? el('p', { class: 'muted' }, 'none in the last 15 minutes')
            : el('div', { class: 'table-wrap' }, el('table', {},
              el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Code'), el('th', { scope: 'col', class: 'num' }, 'Count'))),
              el('tbody', {}, names.map((n) => el('tr', {}, el('td', {}, n), el('td', { class: 'num' }, String(sums[n]))))))));
      };
      clear(this.box).append(
        el('div', { class: 'charts' },
          chart('Connections', [{ label: 'open', values: pick('connections') }]),
          chart('Open rooms', [{ label: 'rooms', values: pick('rooms') }]),
          chart('Messages/s', [{ label: 'in', values: pick('messagesIn') }, { label: 'out', values: pick('messagesOut') }]),
          chart('Bytes/s', [{ label: 'in', values: pick('bytesIn') }, { label: 'out', values: pick('bytesOut') }], formatBytes),
          chart('Edit to ack (ms)', [{ label: 'p50', values: pick('ackP50') }, { label: 'p99', values: pick('ackP99') }]),
          chart('Errors/s', [{ label: 'errors', values: s.map((x) => Object.values(x.errors || {}).reduce((a, b) => a + b, 0)) },
                             { label: 'refusals', values: s.map((x) => Object.values(x.refusals || {}).reduce((a, b) => a + b, 0)) }]),
          chart('Resident memory', [{ label: 'RSS', values: pick('residentBytes') }], formatBytes),
          chart('Open file descriptors', [{ label: 'fds', values: pick('openDescriptors') }])),
        el('div', { class: 'panels' }, counts('Errors by code', totals('errors')), counts('Refusals by reason', totals('refusals'))));
    },
    onSample() { this.draw(); },
  };

  // ---- Documents table --------------------------------------------------------
  const COLUMNS = [['id', 'Id'], ['title', 'Title'], ['owner', 'Owner'], ['size', 'Size', 'num'], ['updated', 'Updated', 'hide-narrow'],
                   ['connections', 'Live', 'num'], ['pendingAcks', 'Pending acks', 'num hide-narrow']];
  const documents = {
    title: 'Documents',
    render() {
      const t = state.table;
      const search = el('input', { type: 'search', id: 'doc-search', value: t.q, placeholder: 'id, title or owner', 'aria-controls': 'doc-table' });
      let timer = null;
      search.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => { t.q = search.value; t.page = 0; this.refresh(); }, 150);
      });
      this.body = el('div', { id: 'doc-table' });
      root().append(el('h2', {}, 'Documents'),
        el('div', { class: 'toolbar' }, el('label', { for: 'doc-search' }, 'Search'), search),
        this.body);
      this.refresh = coalesced(() => this.load());
      this.refresh();
    },
    async load() {
      const t = state.table;
      let page;
      try {
        page = await api('GET', 'documents', { q: t.q, sort: t.sort, order: t.order, page: t.page, pageSize: t.pageSize });
      } catch (error) { showError(this.body, error); return; }
      if (state.view !== this) return;
      const head = el('tr', {}, COLUMNS.map(([key, label, cls]) => {
        const sorted = t.sort === key;
        return el('th', { scope: 'col', class: cls, 'aria-sort': sorted ? (t.order === 'asc' ? 'ascending' : 'descending') : 'none' },
          el('button', { type: 'button', class: 'link', on: { click: () => {
            if (t.sort === key) t.order = t.order === 'asc' ? 'desc' : 'asc'; else { t.sort = key; t.order = key === 'updated' ? 'desc' : 'asc'; }
            this.refresh();
          } } }, label, sorted ? (t.order === 'asc' ? ' \u25B2' : ' \u25BC') : ''));
      }));
      const rows = page.rows.map((row) => el('tr', { 'data-id': row.id },
        el('td', {}, el('a', { href: `#/document/${encodeURIComponent(row.id)}` }, row.id)),
        el('td', { class: 'doc-title' }, row.title),
        el('td', {}, row.owner),
        el('td', { class: 'num' }, formatBytes(row.size)),
        el('td', { class: 'hide-narrow' }, formatTime(row.updated)),
        el('td', { class: 'num' }, String(row.connections)),
        el('td', { class: 'num hide-narrow' }, String(row.pendingAcks))));
      const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
      clear(this.body).append(
        el('div', { class: 'table-wrap' }, el('table', { 'aria-label': 'Documents' }, el('thead', {}, head), el('tbody', {}, rows))),
        el('div', { class: 'pager' },
          el('button', { type: 'button', class: 'secondary', disabled: t.page === 0, on: { click: () => { t.page -= 1; this.refresh(); } } }, 'Previous'),
          el('span', {}, `Page ${page.page + 1} of ${pages} (${page.total} documents)`),
          el('button', { type: 'button', class: 'secondary', disabled: page.page + 1 >= pages, on: { click: () => { t.page += 1; this.refresh(); } } }, 'Next')));
    },
    onChanged() { this.refresh(); },
  };

  // ---- One document ----------------------------------------------------------
  function treeNode(node) {
    switch (node.type) {
      case 'map': {
        const items = node.entries.map((entry) => el('li', {}, el('span', { class: 'key' }, entry.key), ': ', treeNode(entry.node)));
        if (node.more) items.push(el('li', { class: 'muted' }, `\u2026 ${node.more} more`));
        return el('span', {}, el('span', { class: 'kind' }, node.counter !== undefined ? `counter = ${node.counter}` : 'map'), el('ul', {}, items));
      }
      case 'array': {
        const items = node.items.map((item, i) => el('li', {}, el('span', { class: 'key' }, `[${i}]`), ' ', treeNode(item)));
        if (node.more) items.push(el('li', { class: 'muted' }, `\u2026 ${node.more} more`));
        return el('span', {}, el('span', { class: 'kind' }, 'array'), el('ul', {}, items));
      }
      case 'text':
        return el('span', {}, el('span', { class: 'kind' }, 'text'), ' ', el('span', { class: 'text-node' }, node.delta.map((op) => {
          const attributes = op.attributes || {};
          const classes = Object.keys(attributes).filter((k) => ['bold', 'italic', 'underline', 'strike', 'code'].includes(k)).map((k) => `fmt-${k}`);
          const content = typeof op.insert === 'string' ? op.insert : JSON.stringify(op.insert);
          const names = Object.keys(attributes);
          return el('span', { class: classes.join(' ') || null, title: names.length ? JSON.stringify(attributes) : null }, content,
            names.length ? el('span', { class: 'fmt-attrs' }, ` {${names.join(', ')}}`) : null);
        })));
      case 'xml': return el('span', {}, el('span', { class: 'kind' }, 'xml'), ' ', el('code', {}, node.xml));
      case 'subdocument': return el('span', { class: 'muted' }, `subdocument ${node.guid}`);
      case 'cut': return el('span', { class: 'muted' }, '\u2026 (nested too deep)');
      default: return el('span', {}, JSON.stringify(node.value));
    }
  }

  const ROLES = ['reader', 'read-write'];
  function document_(id) {
    return {
      title: 'Document',
      render() {
        this.head = el('div');
        this.body = el('div');
        root().append(el('p', {}, el('a', { href: '#/documents' }, '\u2190 All documents')), this.head, this.body);
        this.refresh = coalesced(() => this.load());
        this.refresh();
      },
      async act(label, task) {
        this.note.textContent = `${label}\u2026`;
        try { const result = await task(); this.note.textContent = `${label}: done${result ? ` (${result})` : ''}`; this.refresh(); }
        catch (error) { this.note.textContent = `${label} failed: ${error.text || error.message}`; }
      },
      async load() {
        let doc;
        try { doc = await api('GET', 'document', { id }); } catch (error) { showError(this.body, error); return; }
        if (state.view !== this) return;
        // The server encodes a document's tree at most four times a second; an older tree
        // says when a refetch gets the current one.
        clearTimeout(this.staleTimer);
        if (doc.contentCurrent === false) {
          this.staleTimer = setTimeout(() => { if (state.view === this) this.refresh(); }, doc.contentRetryMilliseconds || 250);
        }
        if (!this.note) {
          this.note = el('p', { role: 'status', class: 'muted', id: 'action-note' });
          this.confirm = el('div');
          const call = (method, path, body) => api(method, path, { id }, body);
          clear(this.head).append(
            this.titleNode = el('h2', { id: 'doc-title' }),
            el('div', { class: 'actions' },
              el('button', { type: 'button', on: { click: () => this.act('Download', async () => download('document.yjs', await call('GET', 'document/yjs'))) } }, 'Download document.yjs'),
              el('button', { type: 'button', class: 'secondary', on: { click: () => this.act('Export', async () => download(`${id}.bundle.json`, JSON.stringify(await call('GET', 'document/export'), null, 2), 'application/json')) } }, 'Export bundle'),
              el('button', { type: 'button', class: 'secondary', on: { click: () => this.act('Compact', async () => (await call('POST', 'document/compact')).outcome) } }, 'Compact now'),
              el('button', { type: 'button', class: 'danger', on: { click: () => this.askDelete(call) } }, 'Delete\u2026')),
            this.confirm, this.note);
        }
        this.titleNode.textContent = doc.title ? `${doc.title} (${doc.id})` : doc.id;
        const access = doc.access;
        const call = (method, path, body) => api(method, path, { id }, body);
        const memberRows = access ? access.members.map((m) => {
          const select = el('select', { 'aria-label': `Role of ${m.user}` }, ROLES.map((r) => el('option', { value: r, selected: r === m.role }, r)));
          select.addEventListener('change', () => this.act(`Set ${m.user} to ${select.value}`, () => call('PUT', 'document/permissions', { user: m.user, role: select.value })));
          return el('li', { class: 'row-inline', 'data-user': m.user }, el('span', {}, m.user), select,
            el('button', { type: 'button', class: 'secondary revoke', 'aria-label': `Revoke ${m.user}`,
              on: { click: () => this.act(`Revoke ${m.user}`, () => call('DELETE', 'document/permissions', { user: m.user })) } }, 'Revoke'));
        }) : [];
        const link = el('select', { id: 'link-access', 'aria-label': 'Link access' },
          el('option', { value: '', selected: !access || !access.linkAccess }, 'none'),
          ROLES.map((r) => el('option', { value: r, selected: access && access.linkAccess === r }, r)));
        link.addEventListener('change', () => this.act('Link access', () => link.value
          ? call('PUT', 'document/link-access', { role: link.value }) : call('DELETE', 'document/link-access')));
        const clients = doc.clients.map((c) => el('li', { 'data-connection': String(c.connection) },
          el('strong', {}, c.user || 'unknown'), el('span', { class: 'muted' }, ` connection ${c.connection}`),
          c.awareness.length === 0 ? el('div', { class: 'muted' }, 'no awareness state')
            : c.awareness.map((a) => el('div', { class: 'awareness' }, el('span', { class: 'muted' }, `client ${a.clientID}: `),
              el('pre', { class: 'json' }, JSON.stringify(a.state, null, 1))))));
        clear(this.body).append(
          el('dl', { class: 'meta' },
            el('dt', {}, 'Id'), el('dd', {}, doc.id),
            el('dt', {}, 'Title'), el('dd', {}, doc.title || '(none)'),
            el('dt', {}, 'Owner'), el('dd', {}, doc.owner || '(none)'),
            el('dt', {}, 'Size'), el('dd', {}, formatBytes(doc.size)),
            el('dt', {}, 'Updated'), el('dd', {}, formatTime(doc.updated)),
            el('dt', {}, 'Live'), el('dd', {}, doc.loaded ? `${doc.clients.length} connections, ${doc.pendingAcks} acks pending` : 'not loaded')),
          el('div', { class: 'panels' },
            el('section', { class: 'panel', 'aria-labelledby': 'content-title' }, el('h3', { id: 'content-title' }, 'Content'),
              doc.content.length === 0 ? el('p', { class: 'muted' }, 'empty') :
                el('ul', { class: 'tree', id: 'content-tree' }, doc.content.map((r) => el('li', {}, el('span', { class: 'key' }, r.name), ': ', treeNode(r.node))))),
            el('section', { class: 'panel', 'aria-labelledby': 'clients-title' }, el('h3', { id: 'clients-title' }, `Connected clients (${doc.clients.length})`),
              el('ul', { class: 'plain', id: 'clients' }, clients),
              doc.unownedAwareness.length ? el('p', { class: 'muted' }, `${doc.unownedAwareness.length} awareness entries of clients that left`) : null),
            el('section', { class: 'panel', 'aria-labelledby': 'access-title' }, el('h3', { id: 'access-title' }, 'Access'),
              access ? [
                el('p', {}, 'Owner: ', el('strong', {}, access.owner)),
                el('ul', { class: 'plain', id: 'members' }, memberRows.length ? memberRows : el('li', { class: 'muted' }, 'no grants')),
                access.groups.length ? el('p', {}, 'Groups: ', access.groups.map((g) => `${g.group} (${g.role})`).join(', ')) : null,
                access.invitations.length ? el('p', {}, 'Pending invitations: ', access.invitations.map((i) => `${i.email} (${i.role})`).join(', ')) : null,
                el('p', { class: 'row-inline' }, el('label', { for: 'link-access' }, 'Link access'), link),
              ] : el('p', { class: 'muted' }, 'no access row')),
            el('section', { class: 'panel', 'aria-labelledby': 'blobs-title' }, el('h3', { id: 'blobs-title' }, 'Blobs'),
              doc.blobs.length === 0 ? el('p', { class: 'muted' }, 'none') :
                el('ul', { class: 'plain', id: 'blobs' }, doc.blobs.map((b) => el('li', { class: 'row-inline', 'data-hash': b.hash },
                  el('code', { title: b.hash }, b.hash.slice(0, 16)), ` ${b.contentType}, ${formatBytes(b.size)}`,
                  // Fetched with the token (never in a URL), saved from memory under its hash.
                  el('button', { type: 'button', class: 'secondary blob-download', 'aria-label': `Download blob ${b.hash}`,
                    on: { click: () => this.act('Download blob', async () => download(b.hash, await api('GET', 'document/blob', { id, hash: b.hash }))) } },
                    'Download'))))),
            el('section', { class: 'panel', 'aria-labelledby': 'updates-title' }, el('h3', { id: 'updates-title' }, 'Recent updates'),
              doc.recentUpdates.length === 0 ? el('p', { class: 'muted' }, 'none since the server started') :
                el('ul', { class: 'plain', id: 'updates' }, doc.recentUpdates.map((u) => el('li', {}, `${formatTime(u.time)}: ${formatBytes(u.bytes)}`))))));
      },
      askDelete(call) {
        clear(this.confirm).append(el('div', { class: 'confirm', role: 'alertdialog', 'aria-labelledby': 'confirm-text' },
          el('p', { id: 'confirm-text' }, `Delete ${id} for everyone? This cannot be undone.`),
          el('div', { class: 'actions' },
            el('button', { type: 'button', class: 'danger', id: 'confirm-delete', on: { click: async () => {
              clear(this.confirm);
              await this.act('Delete', () => call('DELETE', 'document'));
              location.hash = '#/documents';
            } } }, 'Delete permanently'),
            el('button', { type: 'button', class: 'secondary', id: 'cancel-delete', on: { click: () => clear(this.confirm) } }, 'Cancel'))));
        // Focus on the harmless choice: Enter right after opening must not delete.
        this.confirm.querySelector('#cancel-delete').focus();
      },
      onChanged(message) { if (message.activity || message.documents.includes(id)) this.refresh(); },
    };
  }

  // ---- People ----------------------------------------------------------------
  const people = {
    title: 'People',
    render() {
      this.body = el('div');
      root().append(el('h2', {}, 'People'), el('p', { class: 'muted' }, 'Users connected now, and those seen since the server started.'), this.body);
      this.refresh = coalesced(() => this.load());
      this.refresh();
      this.pagedList('collections', 'Collections', ['Id', 'Title', 'Owner', 'Members', 'Documents'], (c) => el('tr', { 'data-collection': c.id },
        el('td', {}, c.id), el('td', {}, c.title), el('td', {}, c.owner),
        el('td', {}, c.members.map((m) => `${m.user} (${m.role})`).join(', ') || '\u2014'),
        el('td', {}, c.documents.map((d, i) => [i ? ', ' : '', el('a', { href: `#/document/${encodeURIComponent(d)}` }, d)]))));
      this.pagedList('groups', 'Groups', ['Group', 'Members', 'Documents granted'], (g) => el('tr', { 'data-group': g.group },
        el('td', {}, g.group), el('td', {}, g.members.join(', ') || '\u2014'), el('td', { class: 'num' }, String(g.documents))));
    },
    // A server-paged list (`name` is the route and the answer's key): Previous and Next
    // walk the `after` cursors of the pages shown so far.
    pagedList(name, caption, headings, row) {
      const box = el('div', { id: name });
      root().append(el('section', { 'aria-labelledby': `${name}-title` }, el('h3', { id: `${name}-title` }, caption), box));
      const cursors = [''];
      const load = async () => {
        let page;
        try { page = await api('GET', name, { after: cursors[cursors.length - 1] }); } catch (error) { showError(box, error); return; }
        if (state.view !== this) return;
        const items = page[name];
        clear(box).append(items.length === 0 ? el('p', { class: 'muted' }, cursors.length === 1 ? `no ${name}` : `no more ${name}`) :
          el('div', { class: 'table-wrap' }, el('table', { 'aria-label': caption },
            el('thead', {}, el('tr', {}, headings.map((h) => el('th', { scope: 'col' }, h)))),
            el('tbody', {}, items.map(row)))),
          // One page only: no pager.
          cursors.length === 1 && !page.next ? null : el('div', { class: 'pager' },
            el('button', { type: 'button', class: 'secondary', disabled: cursors.length === 1, on: { click: () => { cursors.pop(); load(); } } }, 'Previous'),
            el('span', { class: 'muted' }, ` page ${cursors.length} `),
            el('button', { type: 'button', class: 'secondary', disabled: !page.next, on: { click: () => { cursors.push(page.next); load(); } } }, 'Next')));
      };
      load();
    },
    async load() {
      let result;
      try { result = await api('GET', 'people'); } catch (error) { showError(this.body, error); return; }
      if (state.view !== this) return;
      clear(this.body).append(result.people.length === 0 ? el('p', { class: 'muted' }, 'nobody yet') :
        el('div', { class: 'table-wrap' }, el('table', { 'aria-label': 'People' },
          el('thead', {}, el('tr', {}, ['User', 'Status', 'Connections', 'Documents', 'Groups', 'Collections'].map((h) => el('th', { scope: 'col' }, h)))),
          el('tbody', {}, result.people.map((p) => el('tr', { 'data-user': p.user },
            el('td', {}, p.user),
            el('td', {}, p.connected ? el('span', { class: 'ok' }, 'connected') : `last seen ${formatTime(p.lastSeen)}`),
            el('td', { class: 'num' }, String(p.connections.length)),
            el('td', {}, p.documents.map((d, i) => [i ? ', ' : '', el('a', { href: `#/document/${encodeURIComponent(d)}` }, d)])),
            el('td', {}, p.groups.join(', ') || '\u2014'),
            el('td', {}, (p.collections || []).join(', ') || '\u2014')))))));
    },
    onChanged(message) { if (message.activity) this.refresh(); },
  };

  // ---- Router, live stream, sign-in -------------------------------------------
  function route() {
    if (!Dash.token()) return;
    const hash = location.hash || '#/overview';
    let view = overview;
    if (hash.startsWith('#/documents')) view = documents;
    else if (hash.startsWith('#/people')) view = people;
    else if (hash.startsWith('#/document/')) view = document_(decodeURIComponent(hash.slice('#/document/'.length)));
    state.view = view;
    clear(root());
    for (const link of document.querySelectorAll('#nav a')) {
      if (hash.startsWith(link.getAttribute('href'))) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
    }
    document.title = `${view.title} \u2013 Accord dashboard`;
    view.render();
    document.getElementById('main').focus({ preventScroll: true });
  }

  function onLive(message) {
    if (message.type === 'hello') {
      state.samples = message.samples.slice(-HISTORY);
      if (state.view && state.view.onSample) state.view.onSample();
    } else if (message.type === 'sample') {
      state.samples.push(message.sample);
      if (state.samples.length > HISTORY) state.samples.splice(0, state.samples.length - HISTORY);
      if (state.view && state.view.onSample) state.view.onSample();
    } else if (message.type === 'changed') {
      if (state.view && state.view.onChanged) state.view.onChanged(message);
    }
  }

  function setSignedIn(signedIn) {
    document.getElementById('sign-in').hidden = signedIn;
    document.getElementById('nav').hidden = !signedIn;
    document.getElementById('sign-out').hidden = !signedIn;
    if (!signedIn) clear(root());
  }

  function signOut(reason) {
    Dash.setToken(null);
    if (state.live) state.live.stop();
    state.live = null;
    state.view = null;
    setSignedIn(false);
    document.getElementById('live-state').textContent = '';
    document.getElementById('sign-in-error').textContent = reason || '';
    document.getElementById('token').focus();
  }

  async function signIn() {
    try {
      state.samples = (await api('GET', 'overview')).samples;
    } catch (error) {
      signOut(`Sign-in refused: ${error.text || error.message}`);
      return;
    }
    document.getElementById('sign-in-error').textContent = '';
    setSignedIn(true);
    state.live = new Live(onLive, (text) => { document.getElementById('live-state').textContent = text; });
    state.live.start();
    route();
  }

  document.getElementById('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = document.getElementById('token');
    Dash.setToken(input.value.trim());
    input.value = '';
    signIn();
  });
  document.getElementById('sign-out').addEventListener('click', () => signOut(''));
  window.addEventListener('hashchange', route);
  if (Dash.token()) signIn(); else signOut('');
})();
"""#
}
