/// The dashboard's files, embedded as strings so `accord serve` needs nothing beside
/// its binary. Data is never written into them: the page fetches it and renders every
/// string it did not write itself with `textContent`.
enum DashboardAssets {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Accord dashboard</title>
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
<script src="/dashboard/views.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <h1>Accord</h1>
  <nav aria-label="Sections" id="nav" hidden>
    <a href="#/overview" data-view="overview">Overview</a>
    <a href="#/documents" data-view="documents">Documents</a>
    <a href="#/people" data-view="people">People</a>
  </nav>
  <span id="live-state" class="muted" role="status"></span>
  <button type="button" id="sign-out" hidden>Sign out</button>
</header>
<main id="main" tabindex="-1">
  <section id="sign-in" aria-labelledby="sign-in-title" hidden>
    <h2 id="sign-in-title">Sign in</h2>
    <p>Paste an admin token (<code>accord token --sub you --admin</code>). It stays in this tab's session storage and is sent only in the Authorization header.</p>
    <form id="sign-in-form">
      <label for="token">Admin token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
      <button type="submit">Sign in</button>
    </form>
    <p id="sign-in-error" class="error" role="alert"></p>
  </section>
  <section id="view" aria-live="polite"></section>
</main>
</body>
</html>
"""#

    static let css = #"""
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d6dae0; --panel: #f5f7fa;
  --accent: #0b5cad; --accent-fg: #ffffff; --danger: #b3261e; --ok: #1a7f37;
  --s0: #0b5cad; --s1: #c2410c; --s2: #7c3aed; --s3: #0f766e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111418; --fg: #e6e9ee; --muted: #9aa4b1; --line: #2c333b; --panel: #191e24;
    --accent: #6cb6ff; --accent-fg: #0b0f14; --danger: #ff8a80; --ok: #56d364;
    --s0: #6cb6ff; --s1: #ffa657; --s2: #d2a8ff; --s3: #56d4c4;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -1000px; top: 0; }
.skip:focus { left: 8px; top: 8px; background: var(--panel); padding: 6px; z-index: 10; }
.top { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: center; padding: 10px 20px; border-bottom: 1px solid var(--line); background: var(--panel); }
.top h1 { font-size: 18px; margin: 0; }
.top nav { display: flex; gap: 14px; flex-wrap: wrap; }
.top nav a { text-decoration: none; padding: 4px 2px; }
.top nav a[aria-current="page"] { font-weight: 600; border-bottom: 2px solid var(--accent); }
#live-state { margin-left: auto; font-size: 13px; }
main { padding: 16px 20px 40px; max-width: 1400px; margin: 0 auto; }
main:focus { outline: none; }
h2 { font-size: 20px; margin: 8px 0 12px; overflow-wrap: anywhere; }
.panel, td, dd, figcaption { overflow-wrap: anywhere; }
h3 { font-size: 16px; margin: 20px 0 8px; }
button, select, input { font: inherit; color: inherit; }
button { background: var(--accent); color: var(--accent-fg); border: 0; border-radius: 6px; padding: 6px 12px; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--line); }
button.danger { background: var(--danger); color: var(--bg); }
button.link { background: none; color: var(--accent); padding: 0; border: 0; font-weight: inherit; }
input, select { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; }
form#sign-in-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
#token { min-width: min(100%, 420px); flex: 1; }
.error { color: var(--danger); min-height: 1.4em; }
.muted { color: var(--muted); }
.ok { color: var(--ok); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 14px; }
figure.chart { margin: 0; padding: 10px 12px; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); }
figure.chart figcaption { display: flex; justify-content: space-between; gap: 8px; font-size: 13px; }
figure.chart svg { width: 100%; height: 110px; display: block; }
svg .axis { stroke: var(--line); stroke-width: 1; }
svg .line { fill: none; stroke-width: 1.6; vector-effect: non-scaling-stroke; }
.s0 { stroke: var(--s0); color: var(--s0); } .s1 { stroke: var(--s1); color: var(--s1); }
.s2 { stroke: var(--s2); color: var(--s2); } .s3 { stroke: var(--s3); color: var(--s3); }
.legend { display: flex; gap: 10px; flex-wrap: wrap; font-size: 12px; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th button.link { color: var(--fg); font-weight: 600; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0 12px; }
.toolbar input[type="search"] { flex: 1; min-width: 200px; }
.pager { display: flex; gap: 8px; align-items: center; margin-top: 10px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0; }
.confirm { border: 1px solid var(--danger); border-radius: 8px; padding: 10px; margin: 8px 0; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; }
.panel { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; background: var(--panel); min-width: 0; }
.tree, .tree ul { list-style: none; margin: 0; padding-left: 16px; }
.tree { padding-left: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
.tree .key { color: var(--s2); }
.tree .kind { color: var(--muted); font-size: 11px; margin-left: 4px; }
.text-node { white-space: pre-wrap; }
.fmt-bold { font-weight: 700; } .fmt-italic { font-style: italic; } .fmt-underline { text-decoration: underline; }
.fmt-strike { text-decoration: line-through; } .fmt-code { font-family: ui-monospace, monospace; background: var(--bg); }
.fmt-attrs { color: var(--muted); font-size: 11px; }
pre.json { margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
.row-inline { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { padding: 4px 0; border-bottom: 1px solid var(--line); }
@media (max-width: 600px) {
  main { padding: 12px 10px 30px; }
  .top { padding: 8px 10px; }
  .panels { grid-template-columns: 1fr; }
  .charts { grid-template-columns: 1fr; }
  th, td { padding: 5px 6px; }
  .hide-narrow { display: none; }
}
"""#
}
