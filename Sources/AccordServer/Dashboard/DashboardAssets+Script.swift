extension DashboardAssets {
    /// `app.js`: the page's plumbing: the token, the JSON calls, the live socket, DOM
    /// and SVG helpers. Every string from the server becomes a text node, never markup.
    static let script = #"""
'use strict';
const Dash = (() => {
  const TOKEN_KEY = 'accord.dashboard.token';
  const API = '/v1/admin/dashboard';

  const token = () => sessionStorage.getItem(TOKEN_KEY);
  const setToken = (value) => value ? sessionStorage.setItem(TOKEN_KEY, value) : sessionStorage.removeItem(TOKEN_KEY);

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
    get text() { return `${this.code}: ${this.message}`; }
  }

  // Every call carries the token in the Authorization header, never in the URL.
  async function api(method, path, params = {}, body) {
    const url = new URL(path.startsWith('/') ? path : `${API}/${path}`, location.origin);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, value);
    }
    const headers = { Authorization: `Bearer ${token() || ''}` };
    const init = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      throw new ApiError(0, 'NETWORK', 'the server did not answer');
    }
    const type = response.headers.get('content-type') || '';
    if (!response.ok) {
      let code = `HTTP_${response.status}`;
      let message = response.statusText || 'request failed';
      if (type.includes('json')) {
        const json = await response.json().catch(() => null);
        if (json && json.error) { code = json.error.code || code; message = json.error.message || message; }
      }
      throw new ApiError(response.status, code, message);
    }
    if (type.includes('json')) {
      const json = await response.json();
      return json && Object.prototype.hasOwnProperty.call(json, 'result') ? json.result : json;
    }
    return response.arrayBuffer();
  }

  // el('td', {class: 'num'}, 'text', otherNode): strings become text nodes.
  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'on') {
        for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
      } else if (name === 'text') {
        node.textContent = String(value);
      } else {
        node.setAttribute(name, value === true ? '' : String(value));
      }
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attributes = {}) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    return node;
  }

  // A line chart of one or more series over the same samples, in plain SVG.
  function chart(title, series, format = formatNumber) {
    const width = 300, height = 100;
    const all = series.flatMap((s) => s.values.filter((v) => v !== null && v !== undefined));
    const max = Math.max(1, ...all);
    const count = Math.max(2, ...series.map((s) => s.values.length));
    const latest = series.map((s) => {
      const values = s.values.filter((v) => v !== null && v !== undefined);
      return values.length ? values[values.length - 1] : null;
    });
    const summary = series.map((s, i) => `${s.label} ${latest[i] === null ? 'n/a' : format(latest[i])}`).join(', ');
    const drawing = svg('svg', { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': `${title}: ${summary}` });
    drawing.append(svg('line', { class: 'axis', x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5 }));
    series.forEach((s, index) => {
      const points = [];
      s.values.forEach((value, i) => {
        if (value === null || value === undefined) return;
        const x = (i / (count - 1)) * width;
        const y = height - 2 - (value / max) * (height - 6);
        points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
      });
      if (points.length) drawing.append(svg('polyline', { class: `line s${index % 4}`, points: points.join(' ') }));
    });
    return el('figure', { class: 'chart' },
      el('figcaption', {}, el('strong', {}, title), el('span', { class: 'muted' }, `max ${format(max)}`)),
      drawing,
      el('div', { class: 'legend' }, series.map((s, i) =>
        el('span', { class: `s${i % 4}` }, `\u25A0 ${s.label}: ${latest[i] === null ? 'n/a' : format(latest[i])}`))));
  }

  function formatNumber(value) {
    if (value === null || value === undefined) return 'n/a';
    if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
    if (Math.abs(value) >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
    return String(Math.round(value * 100) / 100);
  }

  function formatBytes(value) {
    if (value === null || value === undefined) return 'n/a';
    const units = ['B', 'KiB', 'MiB', 'GiB'];
    let index = 0;
    while (value >= 1024 && index < units.length - 1) { value /= 1024; index += 1; }
    return `${index === 0 ? value : value.toFixed(1)} ${units[index]}`;
  }

  function formatTime(milliseconds) {
    if (!milliseconds) return 'never';
    return new Date(milliseconds).toLocaleString();
  }

  // The live socket: a single-use ticket first (fetched with the token), then the stream.
  class Live {
    constructor(onMessage, onState) {
      this.onMessage = onMessage;
      this.onState = onState;
      this.stopped = false;
      this.socket = null;
      this.retry = null;
    }
    async start() {
      this.stopped = false;
      let ticket;
      try {
        ticket = (await api('POST', 'ticket')).ticket;
      } catch (error) {
        this.onState(`live: ${error.text || error.message}`);
        if (error.status === 401 || error.status === 403) return;
        this.later();
        return;
      }
      if (this.stopped) return;
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      const socket = new WebSocket(`${scheme}//${location.host}${API}/live?ticket=${encodeURIComponent(ticket)}`);
      socket.binaryType = 'arraybuffer';
      const decoder = new TextDecoder();
      socket.addEventListener('open', () => this.onState('live'));
      socket.addEventListener('message', (event) => {
        const text = typeof event.data === 'string' ? event.data : decoder.decode(event.data);
        this.onMessage(JSON.parse(text));
      });
      socket.addEventListener('close', () => {
        if (this.socket === socket) this.socket = null;
        if (!this.stopped) { this.onState('reconnecting\u2026'); this.later(); }
      });
      this.socket = socket;
    }
    later() { clearTimeout(this.retry); this.retry = setTimeout(() => this.start(), 2000); }
    stop() {
      this.stopped = true;
      clearTimeout(this.retry);
      if (this.socket) this.socket.close();
      this.socket = null;
    }
  }

  // Saves bytes as a file the browser downloads (from memory: nothing in a URL).
  function download(name, bytes, type = 'application/octet-stream') {
    const url = URL.createObjectURL(new Blob([bytes], { type }));
    const link = el('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // Runs `task` now, or once more after the current run when asked again meanwhile.
  function coalesced(task) {
    let running = false, again = false;
    return async function run() {
      if (running) { again = true; return; }
      running = true;
      try { await task(); } finally {
        running = false;
        if (again) { again = false; run(); }
      }
    };
  }

  return { api, ApiError, el, append, clear, chart, formatNumber, formatBytes, formatTime, Live, download, coalesced, token, setToken };
})();
"""#
}
