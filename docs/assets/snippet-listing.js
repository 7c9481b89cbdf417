// Code listings arrive in a <template> (inert, so long scripts cost the page
// nothing until wanted). Opening the <details> inserts the listing and a copy button.
(function () {
  "use strict";
  var LABELS = { en: ["Copy", "Copied"], zh: ["复制", "已复制"] };

  function labels() {
    return LABELS[(document.documentElement.lang || "en").slice(0, 2)] || LABELS.en;
  }

  function fill(details) {
    var template = details.querySelector("template");
    if (!template) return;
    var listing = template.content.cloneNode(true);
    template.remove();
    var button = document.createElement("button");
    button.type = "button";
    button.className = "snippet-listing__copy md-button";
    button.textContent = labels()[0];
    button.addEventListener("click", function () {
      var code = details.querySelector("pre");
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = labels()[1];
        setTimeout(function () { button.textContent = labels()[0]; }, 1500);
      });
    });
    details.appendChild(button);
    details.appendChild(listing);
  }

  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("details.snippet-listing") && event.target.open) {
      fill(event.target);
    }
  }, true);
})();
