// A figure opens full size: clicking (or tapping) it shows the SVG at its natural
// size in a dialog, in the colour scheme the page is in. Escape, the close button or
// a click on the backdrop closes it. Without JavaScript the link opens the SVG itself.
(function () {
  "use strict";
  var CLOSE = { en: "Close", zh: "关闭" };
  var dialog;

  function dark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function open(link) {
    if (!dialog) {
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
      dialog.addEventListener("click", function (event) {
        if (event.target === dialog) dialog.close();
      });
      document.body.appendChild(dialog);
    }
    var shown = link.querySelector(dark() ? "img.figure-dark" : "img.figure-light") ||
      link.querySelector("img");
    var image = dialog.querySelector("img");
    image.src = dark() ? link.getAttribute("data-dark-href") : link.getAttribute("href");
    image.alt = shown.alt;
    dialog.showModal();
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.figure-zoom");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    open(link);
  });
})();
