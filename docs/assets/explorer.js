// Attention explorer: pick a sentence, a layer and a head, then hover, tap or
// focus a token to see where it attends. The weights are a JSON file that
// snippets/real_model_explorer.py publishes at build time on this same site;
// nothing is fetched from anywhere else.
(function () {
  "use strict";

  var TEXT = {
    en: {
      sentence: "Sentence", layer: "Layer", head: "Head",
      from: "attending token", to: "attended token",
      readout: "Layer {layer}, head {head}: “{token}” attends most to {top}.",
      missing: "The explorer's data is missing from this page (the build did not run its snippet).",
      separator: ", ",
    },
    zh: {
      sentence: "句子", layer: "层", head: "头",
      from: "发出注意力的词", to: "被关注的词",
      readout: "第 {layer} 层、第 {head} 个头：“{token}” 最关注的是 {top}。",
      missing: "本页缺少浏览器所需的数据（构建时没有运行对应的代码片段）。",
      separator: "，",
    },
  };
  var DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
  var SVG = "http://www.w3.org/2000/svg";

  function language() {
    return (document.documentElement.lang || "en").slice(0, 2) === "zh" ? "zh" : "en";
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return values[key]; });
  }

  // Two base-36 digits per weight, in thousandths, row after row.
  function decode(encoded, size) {
    var weights = new Float32Array(size * size);
    for (var i = 0; i < weights.length; i++) {
      weights[i] = (DIGITS.indexOf(encoded[2 * i]) * 36 + DIGITS.indexOf(encoded[2 * i + 1])) / 1000;
    }
    return weights;
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A labelled <select>; option values are 1-based ("1" = first), like the labels of layers and heads.
  function select(labelText, options, onChange) {
    var label = element("label", "attention-explorer__control");
    label.appendChild(element("span", "", labelText));
    var box = element("select");
    options.forEach(function (text, i) {
      var option = element("option", "", text);
      option.value = String(i + 1);
      box.appendChild(option);
    });
    box.addEventListener("change", function () { onChange(Number(box.value) - 1); });
    label.appendChild(box);
    return { label: label, box: box };
  }

  function build(root, data) {
    var text = TEXT[language()];
    var state = { sentence: 0, layer: 0, head: 0, token: 0 };

    var controls = element("div", "attention-explorer__controls");
    var sentencePick = select(text.sentence, data.sentences.map(function (s) { return s.text; }),
      function (value) { state.sentence = value; state.token = defaultToken(); render(); });
    var layerPick = select(text.layer, range(data.layers).map(String),
      function (value) { state.layer = value; render(); });
    var headPick = select(text.head, range(data.heads).map(String),
      function (value) { state.head = value; render(); });
    sentencePick.box.setAttribute("data-role", "sentence");
    layerPick.box.setAttribute("data-role", "layer");
    headPick.box.setAttribute("data-role", "head");
    controls.appendChild(sentencePick.label);
    controls.appendChild(layerPick.label);
    controls.appendChild(headPick.label);

    var view = element("div", "attention-explorer__view");
    var left = element("div", "attention-explorer__column attention-explorer__from");
    var right = element("div", "attention-explorer__column attention-explorer__to");
    var lines = document.createElementNS(SVG, "svg");
    lines.setAttribute("class", "attention-explorer__lines");
    lines.setAttribute("preserveAspectRatio", "none");
    lines.setAttribute("aria-hidden", "true");
    view.appendChild(left);
    view.appendChild(lines);
    view.appendChild(right);
    var heads = element("div", "attention-explorer__heads");
    heads.appendChild(element("span", "", text.from));
    heads.appendChild(element("span", "", text.to));
    var readout = element("p", "attention-explorer__readout");
    readout.setAttribute("aria-live", "polite");

    root.textContent = "";
    root.appendChild(controls);
    root.appendChild(heads);
    root.appendChild(view);
    root.appendChild(readout);

    function range(n) { var r = []; for (var i = 1; i <= n; i++) r.push(i); return r; }

    function defaultToken() {
      var tokens = data.sentences[state.sentence].tokens;
      var it = tokens.indexOf("it");
      return it >= 0 ? it : Math.min(1, tokens.length - 1);
    }

    function render() {
      var sentence = data.sentences[state.sentence];
      var tokens = sentence.tokens;
      var size = tokens.length;
      var weights = decode(sentence.attention[state.layer][state.head], size);
      left.textContent = "";
      right.textContent = "";
      tokens.forEach(function (token, i) {
        var button = element("button", "attention-explorer__token", token);
        button.type = "button";
        button.setAttribute("data-index", String(i));
        button.setAttribute("aria-pressed", String(i === state.token));
        var choose = function () { if (state.token !== i) { state.token = i; show(); } };
        button.addEventListener("mouseenter", choose);
        button.addEventListener("focus", choose);
        button.addEventListener("click", choose);
        left.appendChild(button);
        var target = element("div", "attention-explorer__target");
        target.setAttribute("data-index", String(i));
        target.appendChild(element("span", "attention-explorer__word", token));
        target.appendChild(element("span", "attention-explorer__weight"));
        right.appendChild(target);
      });

      function show() {
        var row = weights.subarray(state.token * size, (state.token + 1) * size);
        Array.prototype.forEach.call(left.children, function (button, i) {
          button.setAttribute("aria-pressed", String(i === state.token));
        });
        Array.prototype.forEach.call(right.children, function (target, j) {
          target.setAttribute("data-weight", row[j].toFixed(3));
          target.style.setProperty("--weight", row[j]);
          target.lastChild.textContent = row[j].toFixed(2);
        });
        while (lines.firstChild) lines.removeChild(lines.firstChild);
        // One viewBox unit per token row; stretch the drawing to the token column's height.
        lines.style.height = left.getBoundingClientRect().height + "px";
        lines.setAttribute("viewBox", "0 0 100 " + size);
        for (var j = 0; j < size; j++) {
          if (row[j] < 0.01) continue;
          var line = document.createElementNS(SVG, "line");
          line.setAttribute("x1", "0");
          line.setAttribute("y1", String(state.token + 0.5));
          line.setAttribute("x2", "100");
          line.setAttribute("y2", String(j + 0.5));
          line.setAttribute("stroke-width", String(1 + 6 * row[j]));
          line.setAttribute("stroke-opacity", String(Math.min(1, 0.15 + row[j])));
          line.setAttribute("vector-effect", "non-scaling-stroke");
          lines.appendChild(line);
        }
        var order = range(size).map(function (k) { return k - 1; })
          .sort(function (a, b) { return row[b] - row[a]; }).slice(0, 3);
        readout.textContent = format(text.readout, {
          layer: state.layer + 1, head: state.head + 1, token: tokens[state.token],
          top: order.map(function (k) { return "“" + tokens[k] + "” " + row[k].toFixed(2); }).join(text.separator),
        });
      }
      show();
    }

    state.token = defaultToken();
    render();
  }

  function start() {
    document.querySelectorAll(".attention-explorer").forEach(function (root) {
      // The build publishes the weights as a JSON file of this site (data-src).
      fetch(root.dataset.src)
        .then(function (response) {
          if (!response.ok) throw new Error(response.status);
          return response.json();
        })
        .then(function (data) { build(root, data); })
        .catch(function () { root.textContent = TEXT[language()].missing; });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
