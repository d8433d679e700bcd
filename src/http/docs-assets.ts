import { createHash } from 'node:crypto';

/**
 * The reference's style and its one script, inlined so the pages make no request of their own. The script
 * only enhances: without it every page still reads, the tabs still switch (CSS) and the sidebar still links.
 */
export const DOCS_STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#e3e6ea;--code:#f4f5f7;--accent:#2557d6;--side:#fafbfc;
--get:#1f7a4d;--post:#2557d6;--put:#8a5a00;--patch:#8a5a00;--delete:#b42318;--other:#5b6470}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e8eb;--muted:#9aa3ad;--line:#2a3038;--code:#1b2027;--accent:#7aa2ff;--side:#15191e;
--get:#4cc38a;--post:#7aa2ff;--put:#e0b34f;--patch:#e0b34f;--delete:#ff7b72;--other:#9aa3ad}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.topbar{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline;padding:.6rem 1.25rem;border-bottom:1px solid var(--line)}
.topbar .brand{font-weight:700;color:var(--fg)}.topbar .spacer{flex:1}
.layout{display:grid;grid-template-columns:minmax(0,1fr)}
main{min-width:0;max-width:60rem;padding:0 1.25rem 4rem}
.sidebar{border-top:1px solid var(--line);padding:1rem 1.25rem;background:var(--side);font-size:.9rem}
@media (min-width:60rem){.layout{grid-template-columns:19rem minmax(0,1fr)}.sidebar{grid-column:1;grid-row:1;position:sticky;top:0;
max-height:100vh;overflow-y:auto;border-top:0;border-right:1px solid var(--line)}main{grid-column:2;grid-row:1;padding:0 2.5rem 4rem}.tocLink{display:none}}
h1{font-size:2rem;margin:2rem 0 .25rem}h2{margin:2.5rem 0 .5rem}
h3{margin:1.5rem 0 .5rem;font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}main p a,main li a,main td a{text-decoration:underline}h1 a,h2 a{color:inherit}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em}
code{background:var(--code);padding:.1em .35em;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:1rem;border-radius:8px;overflow-x:auto;margin:.5rem 0}pre code{padding:0;background:none;overflow-wrap:normal}
.version,.muted{color:var(--muted)}
.steps{padding-left:1.2rem}.steps>li{margin:.75rem 0}
section[id]{scroll-margin-top:1rem}
.op{padding:1rem 0 2rem;border-bottom:1px solid var(--line)}.op h2{margin-top:1.5rem}
.endpoint{margin:.25rem 0}.path{font-size:.95em}.pp{color:var(--accent);font-weight:600}
.method{display:inline-block;min-width:4.2em;text-align:center;font:700 .75rem/1.8 ui-monospace,monospace;border-radius:4px;color:#fff;background:var(--other);padding:0 .4em}
.get{background:var(--get)}.post{background:var(--post)}.put,.patch{background:var(--put)}.delete{background:var(--delete)}
@media (prefers-color-scheme:dark){.method{color:#111418}}
.chip{display:inline-block;font-size:.78rem;border:1px solid var(--line);border-radius:.8em;padding:0 .55em;color:var(--muted);overflow-wrap:anywhere}
.chip.perm{color:var(--fg)}.chip.warn,.req{color:var(--delete)}.req{font-size:.78rem;font-weight:600}
.type{font-family:ui-monospace,monospace;font-size:.85rem;color:var(--accent);overflow-wrap:anywhere}
.fields{list-style:none;margin:.25rem 0;padding-left:1rem;border-left:2px solid var(--line)}
.fields li{margin:.5rem 0}.fields p{margin:.1rem 0 0;color:var(--muted)}.name{font-weight:600}
.schema{margin:.25rem 0 1rem}.response>p{margin:.6rem 0 .25rem}
.status{font:700 .8rem ui-monospace,monospace;padding:.1em .45em;border-radius:4px;background:var(--code)}
.s2{color:var(--get)}.s3{color:var(--accent)}.s4{color:var(--put)}.s5{color:var(--delete)}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.45rem .6rem;border-bottom:1px solid var(--line)}td p{margin:0}td:first-child code{overflow-wrap:normal;white-space:nowrap}
.example{margin:.4rem 0}.example>summary{cursor:pointer;color:var(--muted);font-size:.9rem}
.samples{margin:1rem 0;position:relative}.samples>input{position:absolute;opacity:0;pointer-events:none}
.samples>label{display:inline-block;padding:.2rem .8rem;border:1px solid var(--line);border-bottom:0;border-radius:6px 6px 0 0;cursor:pointer;font-size:.85rem;color:var(--muted)}
.samples>input:checked+label{color:var(--fg);background:var(--code);font-weight:600}
.samples>input:focus-visible+label{outline:2px solid var(--accent)}
.sample{display:none;position:relative}.sample pre{margin-top:0;border-top-left-radius:0}.copy+pre{padding-top:2.4rem}
.samples>input:nth-of-type(1):checked~.sample:nth-of-type(1),.samples>input:nth-of-type(2):checked~.sample:nth-of-type(2){display:block}
.copy{position:absolute;top:.4rem;right:.4rem;font:inherit;font-size:.75rem;padding:.1rem .5rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);cursor:pointer}
.sidebar ul{list-style:none;padding:0;margin:.25rem 0 .75rem}.sidebar li{margin:.15rem 0}
.sidebar li a{display:block;padding:.2rem .4rem;border-radius:4px;color:var(--fg)}
.sidebar li a:hover,.sidebar a[aria-current]{background:var(--code);text-decoration:none}.sidebar a[aria-current]{font-weight:600}
.sidebar .method{min-width:3.6em;font-size:.62rem;line-height:1.6}.sidebar .path{font-family:ui-monospace,monospace;font-size:.78rem;overflow-wrap:anywhere}
.sidebar .summary{display:block;color:var(--muted);font-size:.82rem}
.sidebar details>summary{cursor:pointer;padding:.25rem 0;font-weight:600}.sidebar .count{color:var(--muted);font-weight:400;font-size:.8rem}
.sidebar input{width:100%;font:inherit;padding:.35rem .5rem;margin-bottom:.75rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
.sections{padding-left:1.2rem}.sections li{margin:.4rem 0}
.guide h3{text-transform:none;letter-spacing:0;font-size:1.1rem;color:inherit}.guide h3 a,.guide h4 a{color:inherit}.guide img{max-width:100%}
.pager{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap;margin-top:2rem}
[hidden]{display:none!important}
`;

export const DOCS_SCRIPT = `(() => {
  const nav = document.getElementById('nav');
  if (!nav) return;
  const groups = [...nav.querySelectorAll('details')];
  const filter = document.getElementById('filter');
  filter.hidden = false;
  const none = document.getElementById('filter-none');
  filter.addEventListener('input', () => {
    const query = filter.value.trim().toLowerCase();
    let total = 0;
    for (const group of groups) {
      let shown = 0;
      for (const item of group.querySelectorAll('li')) {
        const link = item.querySelector('a');
        const words = item.textContent + ' ' + link.title + ' ' + (link.dataset.words || '');
        item.hidden = query !== '' && !words.toLowerCase().includes(query);
        if (!item.hidden) shown++;
      }
      total += shown;
      group.hidden = shown === 0;
      group.open = query !== '' ? shown > 0 : group.hasAttribute('data-current');
    }
    if (none) none.hidden = query === '' || total > 0;
  });

  const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  // A malformed escape (#%) must not stop the rest of the script.
  const wanted = (() => {
    try {
      return decodeURIComponent(location.hash.slice(1));
    } catch {
      return '';
    }
  })();
  if (wanted !== '' && !document.getElementById(wanted)) {
    // Anchors of the one-page reference: #tag-<section> and #<method>-<path>.
    const moved = [...nav.querySelectorAll('a')].find((link) =>
      link.classList.contains('section') ? 'tag-' + link.pathname.split('/').pop() === wanted : link.title !== '' && slug(link.title) === wanted);
    if (moved) location.replace(moved.href);
  }

  const here = new Map([...nav.querySelectorAll('li a')].filter((link) => link.pathname === location.pathname).map((link) => [link.hash.slice(1), link]));
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const link = here.get(entry.target.id);
      if (!entry.isIntersecting || !link) continue;
      nav.querySelector('[aria-current="location"]')?.removeAttribute('aria-current');
      link.setAttribute('aria-current', 'location');
    }
  }, { rootMargin: '0px 0px -75% 0px' });
  for (const section of document.querySelectorAll('main section[id]')) observer.observe(section);

  const choose = (language) => {
    for (const radio of document.querySelectorAll('.samples input[value="' + language + '"]')) radio.checked = true;
  };
  try { const saved = localStorage.getItem('docs-sample'); if (saved === 'curl' || saved === 'ts') choose(saved); } catch {}
  document.addEventListener('change', (event) => {
    if (!event.target.matches('.samples input')) return;
    choose(event.target.value);
    try { localStorage.setItem('docs-sample', event.target.value); } catch {}
  });

  for (const pre of document.querySelectorAll('.sample pre')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(pre.textContent); button.textContent = 'Copied'; }
      catch { button.textContent = 'Select to copy'; }
      setTimeout(() => { button.textContent = 'Copy'; }, 1500);
    });
    pre.before(button);
  }
})();`;

/** The script runs under the page's CSP by its hash: no 'unsafe-inline', and nothing else may run. */
export const DOCS_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${createHash('sha256').update(DOCS_SCRIPT).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
