// The claims ledger's verdict filter: a button per verdict shows only the claims with that
// verdict, in the overview table and below it. Without JavaScript the buttons stay hidden
// and every claim shows.
(function () {
  "use strict";

  function verdictOf(node) {
    var badge = node.querySelector(".verdict");
    var match = badge && /verdict--(\w+)/.exec(badge.className);
    return match ? match[1] : "";
  }

  function start() {
    var filter = document.querySelector(".ledger-filter");
    if (!filter) return;
    var article = filter.closest("article") || document;
    var rows = Array.prototype.filter.call(article.querySelectorAll("tr"), function (row) {
      return row.querySelector("td .verdict");
    });
    var cards = article.querySelectorAll(".claim-card");
    var buttons = filter.querySelectorAll("button[data-verdict]");

    function show(verdict) {
      rows.forEach(function (row) { row.hidden = verdict !== "" && verdictOf(row) !== verdict; });
      Array.prototype.forEach.call(cards, function (card) {
        card.hidden = verdict !== "" && card.getAttribute("data-verdict") !== verdict;
      });
      Array.prototype.forEach.call(buttons, function (button) {
        button.setAttribute("aria-pressed", String(button.getAttribute("data-verdict") === verdict));
      });
    }

    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener("click", function () { show(button.getAttribute("data-verdict")); });
    });
    filter.hidden = false;
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
