window.MB_WORDS = {"caution":"주의","copied":"복사됨","copy":"복사","date":"측정일","hits":"‘{}’: {}곳","machine":"기계","median":" (중앙값 기준)","minMax":" (최소–최대)","mixed":" (기계 {}대의 수치를 섞은 값)","otherSet":"다른 기계의 세트 {}","range":"범위","ref":" (참고값)","runs":"실행","runsN":"{}회","see":"실험 {} 보기","source":"출처","themeDark":"어두운 테마로 바꾸기","themeLight":"밝은 테마로 바꾸기","transcribed":"원서에서 옮겨 적은 값"};
// The book's script: everything here is an addition; every page reads and
// navigates without it. No request leaves the site.
(function () {
  "use strict";
  var root = document.documentElement;
  var bound = null; // the listeners on document and window of the last setup
  // The words of the book's language, which the build writes in front of
  // this script; say(key, a, b) is one, each "{}" in it filled in turn.
  var words = window.MB_WORDS || {};
  function say(key) {
    var args = Array.prototype.slice.call(arguments, 1);
    return (words[key] || key).replace(/\{\}/g, function () { return args.shift(); });
  }

  // setup binds the page. It runs once at load, and again when the preview
  // server puts rebuilt parts of the page in place (window.mbSetup): every
  // listener of the last setup is dropped first (they all take its
  // signal), and what it added to the page is reused, so nothing piles up.
  function setup() {
    var first = !bound;
    if (bound) bound.abort();
    bound = new AbortController();
    var once = { signal: bound.signal };
    if (window.mbToc) window.mbToc(); // the sidebar of a page the preview put in place

    // Theme: the system's by default; the toggle's choice is remembered.
    var toggle = document.querySelector("button.theme");
    function dark() {
      var t = root.dataset.theme;
      return t ? t === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    }
    function label() {
      toggle.setAttribute("aria-label", dark() ? say("themeLight") : say("themeDark"));
      toggle.setAttribute("aria-pressed", dark() ? "true" : "false");
    }
    if (toggle) {
      toggle.hidden = false;
      label();
      toggle.addEventListener("click", function () {
        root.dataset.theme = dark() ? "light" : "dark";
        try { localStorage.setItem("mb-theme", root.dataset.theme); } catch (e) {}
        label();
      }, once);
    }

    // The sidebar folds away on a narrow screen (when the page loads, not
    // again under the reader's hand).
    var nav = document.querySelector("nav.sidebar details");
    if (first && nav && matchMedia("(max-width: 60rem)").matches) nav.open = false;

    // ←/→ go to the previous and next chapter.
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      var t = e.target;
      if (e.defaultPrevented || t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(t.tagName))) return;
      // A focused table, plot or code block scrolls with the arrows instead.
      if (t && t.closest && t.closest(".scroll, pre")) return;
      var rel = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : "";
      var a = rel && document.querySelector('nav.pager a[rel="' + rel + '"]');
      if (a) location.href = a.href;
    }, once);

    // A live value's provenance, on hover, focus and tap.
    var pop = document.getElementById("mb-pop");
    if (!pop) {
      pop = document.createElement("div");
      pop.className = "mb-pop";
      pop.id = "mb-pop";
      pop.setAttribute("role", "tooltip");
      document.body.appendChild(pop);
    }
    pop.hidden = true;
    var owner = null;
    function add(parent, tag, text, cls) {
      var el = document.createElement(tag);
      el.textContent = text;
      if (cls) el.className = cls;
      parent.appendChild(el);
      return el;
    }
    function show(v) {
      var d = v.dataset;
      pop.textContent = "";
      add(pop, "strong", v.textContent + (d.mixed ? say("mixed", d.mixed) : d.ref ? say("ref") : d.runs ? say("median") : ""));
      var dl = document.createElement("dl");
      function row(k, val) { if (val) { add(dl, "dt", k); add(dl, "dd", val); } }
      row(say("range"), d.range ? d.range + say("minMax") : "");
      row(say("runs"), d.runs ? say("runsN", d.runs) : "");
      row(say("machine"), d.machine);
      row(say("date"), d.date);
      row(say("source"), d.ref === "transcribed" ? say("transcribed") : d.ref ? say("otherSet", d.ref) : "");
      // A value of several machines: its note says which figure is whose.
      if ((!d.machine || d.mixed) && d.note) row(say("source"), d.note);
      if (v.classList.contains("mb-stale") && d.note) row(say("caution"), d.note);
      pop.appendChild(dl);
      if (d.exp) {
        var a = add(pop, "a", say("see", d.exp));
        a.href = (d.page || "") + "#experiment-" + d.exp;
      }
      pop.hidden = false;
      owner = v;
      v.setAttribute("aria-describedby", "mb-pop");
      var r = v.getBoundingClientRect();
      var w = pop.offsetWidth;
      var left = Math.max(8, Math.min(r.left + scrollX, scrollX + root.clientWidth - w - 8));
      pop.style.left = left + "px";
      pop.style.top = (r.bottom + scrollY + 6) + "px";
    }
    function hide() {
      if (owner) owner.removeAttribute("aria-describedby");
      pop.hidden = true;
      owner = null;
    }
    var values = document.querySelectorAll(".mb-value[tabindex]");
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (v.title) { v.dataset.note = v.title; v.removeAttribute("title"); }
      v.addEventListener("mouseenter", function () { show(this); }, once);
      v.addEventListener("focus", function () { show(this); }, once);
      v.addEventListener("click", function (e) { e.stopPropagation(); if (owner === this) hide(); else show(this); }, once);
      v.addEventListener("mouseleave", function () { if (document.activeElement !== this && !pop.matches(":hover")) hide(); }, once);
      v.addEventListener("blur", function (e) { if (!pop.contains(e.relatedTarget)) hide(); }, once);
      v.addEventListener("keydown", function (e) {
        // Enter reaches the popover's link to the experiment.
        if (e.key !== "Enter") return;
        if (owner !== this) show(this);
        var link = pop.querySelector("a");
        if (link) { e.preventDefault(); link.focus(); }
      }, once);
    }
    pop.addEventListener("mouseleave", function () { if (owner && document.activeElement !== owner) hide(); }, once);
    pop.addEventListener("focusout", function (e) { if (!pop.contains(e.relatedTarget) && e.relatedTarget !== owner) hide(); }, once);
    document.addEventListener("click", function (e) { if (!pop.contains(e.target)) hide(); }, once);
    document.addEventListener("keydown", function (e) { if (e.key === "Escape" && owner) { var o = owner; hide(); o.focus(); } }, once);

    // A region wider than the screen says so, beside its shadow.
    function wide() {
      // Every width is read before any class is set: a write between two
      // reads would lay the page out again for each region.
      var regions = document.querySelectorAll(".scroll"), over = [];
      for (var k = 0; k < regions.length; k++) over.push(regions[k].scrollWidth > regions[k].clientWidth + 1);
      for (k = 0; k < regions.length; k++) regions[k].classList.toggle("wide", over[k]);
    }
    wide();
    addEventListener("resize", wide, once);

    // A copy button on every code block (made once; bound at every setup).
    var pres = document.querySelectorAll("pre");
    for (var j = 0; j < pres.length; j++) {
      (function (pre) {
        var wrap = pre.parentNode, b;
        if (wrap.classList.contains("code")) {
          b = wrap.querySelector("button.copy");
        } else {
          b = document.createElement("button");
          b.type = "button";
          b.className = "copy";
          b.textContent = say("copy");
          wrap = document.createElement("div");
          wrap.className = "code";
          pre.parentNode.insertBefore(wrap, pre);
          wrap.appendChild(b);
          wrap.appendChild(pre);
        }
        b.addEventListener("click", function () {
          var text = pre.querySelector("code") ? pre.querySelector("code").innerText : pre.innerText;
          var done = function () { b.textContent = say("copied"); setTimeout(function () { b.textContent = say("copy"); }, 1500); };
          if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
          else {
            var t = document.createElement("textarea");
            t.value = text; document.body.appendChild(t); t.select();
            try { document.execCommand("copy"); done(); } catch (e) {}
            document.body.removeChild(t);
          }
        }, once);
      })(pres[j]);
    }

    // The search page: every word must appear in a section; results follow
    // the box as one types, and the address keeps the query. The index is
    // loaded at the first search (see loadIndex), and the hits grow as its
    // parts come in.
    var out = document.getElementById("results");
    if (out) {
      var box = document.getElementById("q");
      var q = "", terms = [], hits = [], scanned = 0;
      var list = function () {
        out.textContent = "";
        if (!terms.length) return;
        add(out, "p", say("hits", q, hits.length) + (index.next ? "…" : ""));
        var ol = add(out, "ol", "", "hits");
        hits.slice(0, 100).forEach(function (s) {
          var li = add(ol, "li", "");
          var a = add(li, "a", s.t);
          a.href = s.u;
          if (s.t !== s.c) add(li, "span", " · " + s.c, "where");
          var x = s.x.toLowerCase().indexOf(terms[0]);
          var from = Math.max(0, x - 60);
          add(li, "p", (from > 0 ? "…" : "") + s.x.slice(from, x + 100) + "…", "snippet");
        });
      };
      // scan looks for the query in the sections that came since the last.
      var scan = function () {
        for (; terms.length && scanned < index.sections.length; scanned++) {
          var s = index.sections[scanned], hay = (s.t + " " + s.x).toLowerCase();
          if (terms.every(function (w) { return hay.indexOf(w) >= 0; })) hits.push(s);
        }
        list();
      };
      var search = function (text) {
        q = text;
        terms = q.toLowerCase().split(/\s+/).filter(Boolean);
        hits = [];
        scanned = 0;
        if (terms.length) loadIndex();
        scan();
      };
      index.seen = scan;
      box.value = new URLSearchParams(location.search).get("q") || "";
      search(box.value);
      box.addEventListener("input", function () {
        search(box.value);
        try { history.replaceState(null, "", "?q=" + encodeURIComponent(box.value)); } catch (e) {}
      }, once);
    }
  }

  // The search index, in parts (site.SearchIndex): search-index.js first,
  // then the part each names, each a script that calls mbSearchPart (a
  // script, not a fetch, so that it loads from file:// too). Nothing is
  // loaded until a search is made.
  var index = { sections: [], next: "search-index.js", loading: false, seen: null };
  function loadIndex() {
    if (index.loading || !index.next) return;
    index.loading = true;
    var s = document.createElement("script");
    s.src = index.next;
    s.onerror = function () { index.loading = false; index.next = null; if (index.seen) index.seen(); };
    document.head.appendChild(s);
  }
  window.mbSearchPart = function (sections, next) {
    for (var i = 0; i < sections.length; i++) index.sections.push(sections[i]);
    window.MB_SEARCH = index.sections; // the preview reloads a search page whole
    index.loading = false;
    index.next = next;
    if (index.seen) index.seen();
    loadIndex();
  };
  setup();
  window.mbSetup = setup;
})();
