// A figure opens large: clicking (or tapping) it shows the SVG in a dialog, in the colour
// scheme the page is in, with its caption. The figure is shown at least at its natural size
// (the size its text was drawn for, 12 px and up; on a phone the dialog scrolls) and, where
// the window has room, up to twice the size the column shows it at. Escape, the close
// button or a click on the backdrop closes it. Without JavaScript the link opens the SVG.
(function () {
  "use strict";
  var CLOSE = { en: "Close", zh: "关闭" };
  var MARGIN = 48;  // CSS px left around the figure: the dialog's padding and a scrollbar
  var dialog;

  function dark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "figure-lightbox";
    var lang = (document.documentElement.lang || "en").slice(0, 2);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "figure-lightbox__close md-button";
    button.textContent = CLOSE[lang] || CLOSE.en;
    button.addEventListener("click", function () { dialog.close(); });
    dialog.appendChild(button);
    dialog.appendChild(document.createElement("img"));
    dialog.appendChild(document.createElement("p")).className = "figure-lightbox__caption";
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) dialog.close();
    });
    document.body.appendChild(dialog);
  }

  function open(link) {
    if (!dialog) build();
    var shown = link.querySelector(dark() ? "img.figure-dark" : "img.figure-light") ||
      link.querySelector("img");
    var natural = Number(shown.getAttribute("width")) || shown.naturalWidth;
    var ratio = (Number(shown.getAttribute("height")) || shown.naturalHeight) / natural;
    var room = window.innerWidth - MARGIN;
    var width = Math.max(natural, Math.min(room, 2 * shown.clientWidth));
    var image = dialog.querySelector("img");
    image.src = dark() ? link.getAttribute("data-dark-href") : link.getAttribute("href");
    image.alt = shown.alt;
    image.style.width = width + "px";
    image.style.height = Math.round(width * ratio) + "px";
    var caption = link.closest("figure").querySelector("figcaption");
    var text = dialog.querySelector(".figure-lightbox__caption");
    text.innerHTML = caption ? caption.innerHTML : "";
    text.style.maxWidth = Math.min(width, room) + "px";
    dialog.showModal();
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.figure-zoom");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    open(link);
  });
})();
