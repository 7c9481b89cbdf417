// A box that scrolls sideways (a code block, a wide table) says so: a shade on each side
// that has more to scroll, however little more. The CSS gradients alone show it only when the
// overflow is wider than the gradient; this marks the box itself, on load, on scrolling and
// whenever its size changes (a <details> opened, the window turned).
(function () {
  "use strict";
  var BOXES = ".md-typeset pre > code, .md-typeset .md-typeset__scrollwrap";

  function update(box) {
    var more = box.scrollWidth - box.clientWidth;
    box.classList.toggle("scroll-more-right", more > 1 && box.scrollLeft < more - 1);
    box.classList.toggle("scroll-more-left", more > 1 && box.scrollLeft > 1);
  }

  var resized = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { update(entry.target); });
  });

  function watch() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (box.dataset.scrollCue) return;
      box.dataset.scrollCue = "1";
      box.addEventListener("scroll", function () { update(box); }, { passive: true });
      resized.observe(box);
      update(box);
    });
  }

  if (window.document$) window.document$.subscribe(watch);  // Material's page loads
  else document.addEventListener("DOMContentLoaded", watch);
})();
