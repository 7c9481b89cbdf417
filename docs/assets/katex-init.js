// Typeset math with the KaTeX copy served by this site (no CDN).
// pymdownx.arithmatex (generic mode) wraps math as \( ... \) and \[ ... \].
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".arithmatex").forEach(function (element) {
    var source = element.textContent.trim();
    var display = source.startsWith("\\[");
    katex.render(source.slice(2, -2), element, { displayMode: display, throwOnError: false });
  });
});
