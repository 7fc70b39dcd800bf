(function () {
  // Added by `go run . serve` only: shows the rebuilt page when the site
  // is rebuilt (keeping the scroll position), shows a build error over the
  // page and what is not measured yet or being measured. Its words are
  // the author's, in English like the build's warnings and errors, not
  // the book's (the build-failed page has no site script to give them).
  var me = document.currentScript, version = me.dataset.version;
  var key = "mb-serve-scroll:" + location.pathname;
  var y = sessionStorage.getItem(key);
  if (y !== null) {
    sessionStorage.removeItem(key);
    var restore = function () { window.scrollTo(0, +y); };
    if (document.readyState === "complete") restore(); else addEventListener("load", restore);
  }
  function el(tag, css, text) {
    var e = document.createElement(tag);
    if (css) e.style.cssText = css;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function overlay(errors) {
    var old = document.getElementById("mb-serve-overlay");
    if (old) old.remove();
    if (!errors.length) return;
    var o = el("div", "position:fixed;inset:0;z-index:2147483647;background:rgba(20,20,20,.82);overflow:auto;padding:4vh 4vw;font:15px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#eee");
    o.id = "mb-serve-overlay";
    var box = el("div", "max-width:60rem;margin:0 auto;background:#1e1e1e;border-top:6px solid #e5484d;border-radius:6px;padding:1.2rem 1.5rem;box-shadow:0 10px 40px #000");
    box.appendChild(el("div", "color:#ff8a8a;font-weight:bold;font-size:17px;margin-bottom:.8rem", "Build failed — fix the file and save: this goes away"));
    errors.forEach(function (p) {
      var item = el("div", "margin:.9rem 0");
      if (p.file) item.appendChild(el("div", "color:#7cc4ff", p.file + ":" + p.line + ":" + p.col));
      item.appendChild(el("div", "white-space:pre-wrap;color:#fff", p.msg));
      if (p.source !== undefined && p.line) {
        var pre = el("pre", "margin:.4rem 0 0;padding:.5rem .8rem;background:#111;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;color:#ccc");
        var chars = Array.from(p.source), at = Math.max(0, Math.min(p.col - 1, chars.length));
        pre.appendChild(el("span", "color:#777", p.line + " | "));
        pre.appendChild(document.createTextNode(chars.slice(0, at).join("")));
        pre.appendChild(el("span", "background:#e5484d;color:#fff", chars[at] === undefined ? " " : chars[at]));
        pre.appendChild(document.createTextNode(chars.slice(at + 1).join("")));
        item.appendChild(pre);
      }
      box.appendChild(item);
    });
    o.appendChild(box);
    document.body.appendChild(o);
  }
  function status(s) {
    var old = document.getElementById("mb-serve-status");
    if (old) old.remove();
    if (!s.progress && !s.pending.length) return;
    var b = el("div", "position:fixed;right:1rem;bottom:1rem;z-index:2147483646;max-width:34rem;background:#fffbe6;color:#222;border:1px solid #e0c200;border-radius:6px;padding:.6rem .9rem;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;box-shadow:0 4px 16px rgba(0,0,0,.2)");
    b.id = "mb-serve-status";
    if (s.progress) b.appendChild(el("div", "font-weight:bold", "measuring: " + s.progress));
    s.pending.forEach(function (p) {
      b.appendChild(el("div", "", "not measured yet: " + p.id + " (" + p.why + ") — " + p.command));
    });
    document.body.appendChild(b);
  }
  function show(s) {
    overlay(s.errors);
    status(s);
  }
  var first = JSON.parse(me.dataset.state), assets = first.assets, last = first;
  show(first);

  function reload(es) {
    sessionStorage.setItem(key, String(window.scrollY));
    es.close();
    location.reload();
  }
  // The page as last served, parsed (before the site's script added to
  // it): what the next version is compared with. Fetched once the page has
  // loaded; until then a save swaps the whole body.
  var served = null;
  function parse(text) {
    var doc = new DOMParser().parseFromString(text, "text/html");
    var s = doc.getElementById("mb-serve");
    if (!s) return null;
    s.remove();
    doc.version = s.dataset.version;
    return doc;
  }
  function fetchPage() {
    return fetch(location.pathname + location.search, { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    });
  }
  addEventListener("load", function () {
    fetchPage().then(function (text) {
      var doc = parse(text);
      if (doc && doc.version === version && !swapping) {
        served = doc;
        me.dataset.served = ""; // from now on a save can morph
      }
    }, function () {});
  });

  // morph puts in place only the blocks of the chapter that changed from
  // old to doc (the common head and tail of #main's children are kept), when
  // nothing else on the page changed: the browser lays out again only what
  // is new. It reports whether it could.
  function morph(doc, old) {
    var nm = doc.getElementById("main"), om = old && old.getElementById("main"), lm = document.getElementById("main");
    if (!nm || !om || !lm || doc.title !== old.title || !doc.head.isEqualNode(old.head)) return false;
    var O = om.childNodes, N = nm.childNodes, L = Array.prototype.slice.call(lm.childNodes);
    if (L.length !== O.length) return false;
    var np = nm.parentNode, nn = nm.nextSibling, op = om.parentNode, on = om.nextSibling;
    nm.remove();
    om.remove();
    var same = doc.body.isEqualNode(old.body);
    np.insertBefore(nm, nn);
    op.insertBefore(om, on);
    if (!same) return false;
    var p = 0, s = 0;
    while (p < O.length && p < N.length && O[p].isEqualNode(N[p])) p++;
    while (s < O.length - p && s < N.length - p && O[O.length - 1 - s].isEqualNode(N[N.length - 1 - s])) s++;
    var before = L[L.length - s] || null, add = document.createDocumentFragment();
    for (var i = p; i < L.length - s; i++) L[i].remove();
    for (var j = p; j < N.length - s; j++) add.appendChild(document.importNode(N[j], true));
    lm.insertBefore(add, before);
    return true;
  }

  // swap shows the rebuilt page without a navigation, the quickest way to
  // show a save (a reload lays out the whole page again and starts every
  // script anew): the changed blocks alone when it can (morph), else the
  // whole body. This script and its event stream stay; the site's script
  // binds the page again.
  var swapping = false;
  function swap(es) {
    swapping = true;
    fetchPage().then(function (text) {
      var doc = parse(text), old = served;
      if (!doc) throw new Error("not a served page");
      version = doc.version;
      var y = window.scrollY;
      if (morph(doc, old)) {
        served = doc;
      } else {
        served = parse(text); // doc's body is about to be this page's
        document.title = doc.title;
        document.documentElement.lang = doc.documentElement.lang;
        document.body.replaceWith(document.adoptNode(doc.body));
        document.body.appendChild(me);
      }
      if (window.mbSetup) window.mbSetup();
      window.scrollTo(0, y);
      show(last);
      swapping = false;
      if (String(last.version) !== version) update(es, last);
    }).catch(function () { reload(es); });
  }
  // assetsChanged tells whether a stylesheet or script this page loads
  // changed since it was loaded.
  function assetsChanged(now) {
    var els = document.querySelectorAll("link[rel=stylesheet][href], script[src]");
    for (var i = 0; i < els.length; i++) {
      var name = els[i].getAttribute("href") || els[i].getAttribute("src");
      if ((assets || {})[name] !== (now || {})[name]) return true;
    }
    return false;
  }
  function update(es, s) {
    last = s;
    show(s);
    if (s.errors.length || String(s.version) === version || swapping) return;
    // A new stylesheet or script, or the search page (its index is a
    // script), needs the whole page loaded again.
    if (assetsChanged(s.assets) || window.MB_SEARCH || !window.fetch || !window.DOMParser || !window.mbSetup) reload(es);
    else swap(es);
  }
  var es = new EventSource("/_serve/events");
  es.addEventListener("state", function (e) { update(es, JSON.parse(e.data)); });
})();
