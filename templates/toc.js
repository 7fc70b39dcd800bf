// The sidebar's chapters, written once for the whole site: toc.js is the
// list above (window.MB_CHAPTERS, [file, title] in book order) and this,
// which puts the lines of the other chapters around the page's own (the
// current chapter, with its contents, is in the page; so is the link to
// the contents page, for a reader without JavaScript). It runs where the
// page loads it, just after the sidebar, so the list is there before the
// page is first drawn; the preview calls it again (window.mbToc) when it
// puts a rebuilt page in place.
(function () {
  "use strict";
  function fill() {
    var ol = document.getElementById("mb-chapters"), list = window.MB_CHAPTERS;
    if (!ol || !list || ol.dataset.filled) return;
    ol.dataset.filled = "1";
    var at = ol.dataset.at === undefined ? -1 : Number(ol.dataset.at);
    var contents = ol.firstElementChild, current = at >= 0 ? contents.nextElementSibling : null;
    var before = document.createDocumentFragment(), after = document.createDocumentFragment();
    for (var i = 0; i < list.length; i++) {
      if (i === at) continue;
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = list[i][0];
      a.textContent = list[i][1];
      li.appendChild(a);
      (current && i > at ? after : before).appendChild(li);
    }
    ol.insertBefore(before, contents.nextSibling);
    if (current) ol.insertBefore(after, current.nextSibling);
  }
  fill();
  window.mbToc = fill;
})();
