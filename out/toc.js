window.MB_CHAPTERS=[["c10k.html","1장. 1만 개의 연결 — C10K가 드러낸 것"],["select-to-epoll.html","2장. select에서 epoll까지 — 커널이 답을 바꾼 20년"],["blocking-read.html","5장. read() 한 번의 전 여정 — 잠드는 순간과 깨는 순간"],["nonblocking.html","6장. 논블로킹은 플래그 하나다 — O_NONBLOCK과 EAGAIN"]];
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
