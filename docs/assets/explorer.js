// Attention explorer: pick a sentence, a layer and a head; point at a token to preview
// where it attends, click or tap it to pin it; see all 72 heads for that token at once.
// The state lives in the URL (?s=sentence&l=layer&h=head&t=token&special=hide), so a page
// can link to an exact view. Without one, it opens where the page's data-layer / data-head
// point (the head the build measured as best at resolving "it"), on "it", with [CLS] and
// [SEP] hidden and the other weights renormalised (a checkbox shows them again). The weights are JSON files that snippets/real_model/explorer.py
// publishes at build time on this same site; nothing is fetched from anywhere else.
(function () {
  "use strict";

  var TEXT = {
    en: {
      sentence: "Sentence", layer: "Layer", head: "Head",
      from: "attending token", to: "attended token",
      tokens: "Tokens of the sentence (arrow keys: ← → token, ↑ ↓ head, Shift+↑ ↓ layer)",
      targets: "Where “{token}” attends in layer {layer}, head {head}",
      readout: "Layer {layer}, head {head}: “{token}” attends most to {top}.",
      pinned: "Pinned — click the token again to unpin.",
      preview: "Point at a token to preview it; click or tap to pin it.",
      overview: "All {count} heads for “{token}”",
      overviewHint: "Each square is one head: a bar per token of the sentence, as tall as the weight. Click one to open it.",
      cell: "Layer {layer}, head {head}: most to “{top}” ({weight})",
      missing: "The explorer's data is missing from this page (the build did not run its snippet).",
      separator: ", ",
      hideSpecial: "Hide [CLS] and [SEP] and renormalise the other weights",
      renormalised: " (without [CLS] and [SEP], renormalised to sum to 1)",
    },
    zh: {
      sentence: "句子", layer: "层", head: "头",
      from: "发出注意力的词元", to: "被关注的词元",
      tokens: "句中的词元（方向键：← → 换词元，↑ ↓ 换头，Shift+↑ ↓ 换层）",
      targets: "第 {layer} 层第 {head} 个头里，“{token}”关注哪里",
      readout: "第 {layer} 层、第 {head} 个头：“{token}” 最关注的是 {top}。",
      pinned: "已固定——再点一次这个词元即可取消。",
      preview: "把鼠标移到词元上可以预览；点击或轻点即可固定。",
      overview: "“{token}”在全部 {count} 个头里的注意力",
      overviewHint: "每个小方块是一个头：句中每个词元一根柱子，柱子高度就是权重。点击方块即可打开那个头。",
      cell: "第 {layer} 层第 {head} 个头：最关注“{top}”（{weight}）",
      missing: "本页缺少探索器所需的数据（构建时没有运行对应的代码片段）。",
      separator: "，",
      hideSpecial: "隐藏 [CLS] 和 [SEP]，其余权重重新归一化",
      renormalised: "（不计 [CLS] 和 [SEP]，其余权重重新归一化到和为 1）",
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

  function svgElement(tag, attributes) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attributes).forEach(function (key) { node.setAttribute(key, String(attributes[key])); });
    return node;
  }

  function range(n) { var r = []; for (var i = 0; i < n; i++) r.push(i); return r; }

  function clamp(value, low, high) { return Math.max(low, Math.min(high, value)); }

  // A labelled <select>; option values are 1-based ("1" = first), like the labels of layers and heads.
  function select(labelText, options, role, onChange) {
    var label = element("label", "attention-explorer__control");
    label.appendChild(element("span", "", labelText));
    var box = element("select");
    box.setAttribute("data-role", role);
    options.forEach(function (text, i) {
      var option = element("option", "", text);
      option.value = String(i + 1);
      box.appendChild(option);
    });
    box.addEventListener("change", function () { onChange(Number(box.value) - 1); });
    label.appendChild(box);
    return { label: label, box: box };
  }

  // The row of one token in one head.
  function attentionRow(weights, token, size) {
    return weights.subarray(token * size, (token + 1) * size);
  }

  function strongest(row, shown) {
    var best = shown[0];
    shown.forEach(function (j) { if (row[j] > row[best]) best = j; });
    return best;
  }

  var SPECIAL = { "[CLS]": true, "[SEP]": true };

  // The tokens on view: all of them, or all but [CLS] and [SEP].
  function shownTokens(tokens, hideSpecial) {
    return range(tokens.length).filter(function (i) { return !(hideSpecial && SPECIAL[tokens[i]]); });
  }

  // A row of weights over the tokens on view; renormalised to sum to 1 when some are hidden.
  function shownRow(row, shown) {
    var total = 0;
    var out = new Float32Array(row.length);
    shown.forEach(function (j) { total += row[j]; });
    var scale = shown.length < row.length && total > 0 ? 1 / total : 1;
    shown.forEach(function (j) { out[j] = row[j] * scale; });
    return out;
  }

  // The same word in another sentence: the same occurrence of it ("the" twice: the second
  // "the" stays the second), or its last occurrence; -1 if the word is not there.
  function sameWord(fromTokens, index, toTokens) {
    var word = fromTokens[index];
    var occurrence = fromTokens.slice(0, index).filter(function (t) { return t === word; }).length;
    var found = [];
    toTokens.forEach(function (t, i) { if (t === word) found.push(i); });
    return found.length ? found[Math.min(occurrence, found.length - 1)] : -1;
  }

  function build(root, data, source) {
    var text = TEXT[language()];
    var state = { sentence: 0, layer: 0, head: 0, token: 0, pinned: false, hideSpecial: false };
    var opening = { layer: clamp(parseInt(root.dataset.layer, 10) || 1, 1, data.layers) - 1,
                    head: clamp(parseInt(root.dataset.head, 10) || 1, 1, data.heads) - 1 };
    var loaded = {};  // sentence index -> decoded weights [layer][head] (Float32Array)

    var controls = element("div", "attention-explorer__controls");
    var sentencePick = select(text.sentence, data.sentences.map(function (s) { return s.text; }),
      "sentence", function (value) { changeSentence(value); });
    var layerPick = select(text.layer, range(data.layers).map(function (i) { return String(i + 1); }),
      "layer", function (value) { state.layer = value; update(); });
    var headPick = select(text.head, range(data.heads).map(function (i) { return String(i + 1); }),
      "head", function (value) { state.head = value; update(); });
    [sentencePick, layerPick, headPick].forEach(function (pick) { controls.appendChild(pick.label); });
    var hideLabel = element("label", "attention-explorer__control attention-explorer__toggle");
    var hideBox = element("input");
    hideBox.type = "checkbox";
    hideBox.setAttribute("data-role", "hide-special");
    hideBox.addEventListener("change", function () {
      state.hideSpecial = hideBox.checked;
      var tokens = data.sentences[state.sentence].tokens;
      if (state.hideSpecial && SPECIAL[tokens[state.token]]) state.token = defaultToken();
      update();
    });
    hideLabel.appendChild(hideBox);
    hideLabel.appendChild(element("span", "", text.hideSpecial));
    controls.appendChild(hideLabel);

    var hint = element("p", "attention-explorer__hint");
    var columnsHead = element("div", "attention-explorer__heads");
    columnsHead.appendChild(element("span", "", text.from));
    columnsHead.appendChild(element("span", "", text.to));
    var view = element("div", "attention-explorer__view");
    var left = element("div", "attention-explorer__column attention-explorer__from");
    left.setAttribute("role", "group");
    left.setAttribute("aria-label", text.tokens);
    var right = element("ul", "attention-explorer__column attention-explorer__to");
    var lines = svgElement("svg", { "class": "attention-explorer__lines", preserveAspectRatio: "none",
                                    "aria-hidden": "true", focusable: "false" });
    view.appendChild(left);
    view.appendChild(lines);
    view.appendChild(right);
    var readout = element("p", "attention-explorer__readout");
    readout.id = "attention-explorer-readout-" + Math.random().toString(36).slice(2, 8);
    readout.setAttribute("aria-live", "polite");
    right.setAttribute("aria-describedby", readout.id);

    var overview = element("section", "attention-explorer__overview");
    var overviewTitle = element("h2", "attention-explorer__overview-title");
    overviewTitle.id = readout.id + "-overview";
    overview.setAttribute("aria-labelledby", overviewTitle.id);
    var grid = element("div", "attention-explorer__grid");
    grid.setAttribute("role", "group");
    grid.setAttribute("aria-labelledby", overviewTitle.id);
    overview.appendChild(overviewTitle);
    overview.appendChild(element("p", "attention-explorer__hint", text.overviewHint));
    overview.appendChild(grid);

    root.textContent = "";
    [controls, hint, columnsHead, view, readout, overview].forEach(function (n) { root.appendChild(n); });

    // --- the URL -------------------------------------------------------------------------
    function readUrl() {
      var params = new URLSearchParams(window.location.search);
      var number = function (key, low, high, fallback) {
        var value = parseInt(params.get(key), 10);
        return isNaN(value) ? fallback : clamp(value, low, high);
      };
      // No view asked for: the opening view, "it" pinned in the head the page names.
      var first = !["s", "l", "h", "t"].some(function (key) { return params.has(key); });
      state.sentence = number("s", 0, data.sentences.length - 1, 0);
      state.layer = number("l", 1, data.layers, opening.layer + 1) - 1;
      state.head = number("h", 1, data.heads, opening.head + 1) - 1;
      state.hideSpecial = first || params.get("special") === "hide";
      var tokens = data.sentences[state.sentence].tokens;
      var token = params.get("t");
      var index = token === null ? -1 : (/^\d+$/.test(token) ? parseInt(token, 10) : tokens.indexOf(token));
      if (index >= 0 && index < tokens.length) {
        state.token = index;
        state.pinned = true;
      } else {
        state.token = defaultToken();
        state.pinned = first;
      }
      if (state.hideSpecial && SPECIAL[tokens[state.token]]) state.hideSpecial = false;
    }

    function writeUrl() {
      var params = new URLSearchParams(window.location.search);
      params.set("s", state.sentence);
      params.set("l", state.layer + 1);
      params.set("h", state.head + 1);
      if (state.pinned) params.set("t", state.token); else params.delete("t");
      if (state.hideSpecial) params.set("special", "hide"); else params.delete("special");
      var url = window.location.pathname + "?" + params.toString() + window.location.hash;
      if (url !== window.location.pathname + window.location.search + window.location.hash) {
        window.history.replaceState(window.history.state, "", url);
      }
    }

    function defaultToken() {
      var tokens = data.sentences[state.sentence].tokens;
      var it = tokens.indexOf("it");
      return it >= 0 ? it : Math.min(1, tokens.length - 1);
    }

    // --- data ----------------------------------------------------------------------------
    function load(index) {
      if (loaded[index]) return Promise.resolve(loaded[index]);
      var sentence = data.sentences[index];
      var url = new URL(sentence.file, source).toString();
      return fetch(url)
        .then(function (response) {
          if (!response.ok) throw new Error(response.status);
          return response.json();
        })
        .then(function (file) {
          var size = sentence.tokens.length;
          loaded[index] = file.attention.map(function (layer) {
            return layer.map(function (head) { return decode(head, size); });
          });
          return loaded[index];
        });
    }

    // A new sentence keeps the selected word (pinned or not) where the sentence has it.
    function changeSentence(index) {
      var same = sameWord(data.sentences[state.sentence].tokens, state.token, data.sentences[index].tokens);
      state.sentence = index;
      if (same >= 0) {
        state.token = same;
      } else {
        state.token = defaultToken();
        state.pinned = false;
      }
      load(index).then(function () { drawSentence(); update(); }, fail);
    }

    // --- drawing ---------------------------------------------------------------------------
    function drawSentence() {
      var tokens = data.sentences[state.sentence].tokens;
      left.textContent = "";
      right.textContent = "";
      tokens.forEach(function (token, i) {
        var button = element("button", "attention-explorer__token", token);
        button.type = "button";
        button.setAttribute("data-index", String(i));
        button.addEventListener("mouseenter", function () { preview(i); });
        button.addEventListener("focus", function () { preview(i); });
        button.addEventListener("click", function () { pin(i); });
        left.appendChild(button);
        var target = element("li", "attention-explorer__target");
        target.setAttribute("data-index", String(i));
        target.appendChild(element("span", "attention-explorer__word", token));
        target.appendChild(element("span", "attention-explorer__weight"));
        right.appendChild(target);
      });
      grid.textContent = "";
      grid.appendChild(element("span", "attention-explorer__grid-label"));
      range(data.heads).forEach(function (h) {
        grid.appendChild(element("span", "attention-explorer__grid-label", String(h + 1)));
      });
      range(data.layers).forEach(function (l) {
        grid.appendChild(element("span", "attention-explorer__grid-label", "L" + (l + 1)));
        range(data.heads).forEach(function (h) {
          var cell = element("button", "attention-explorer__cell");
          cell.type = "button";
          cell.setAttribute("data-layer", String(l + 1));
          cell.setAttribute("data-head", String(h + 1));
          cell.addEventListener("click", function () { openHead(l, h, false); });
          cell.appendChild(svgElement("svg", { viewBox: "0 0 " + tokens.length + " 1",
                                              preserveAspectRatio: "none", "aria-hidden": "true",
                                              focusable: "false" }));
          grid.appendChild(cell);
        });
      });
      sentencePick.box.value = String(state.sentence + 1);
    }

    function preview(i) {
      if (state.pinned || state.token === i) return;
      state.token = i;
      update();
    }

    function pin(i) {
      if (state.pinned && state.token === i) {
        state.pinned = false;
      } else {
        state.token = i;
        state.pinned = true;
      }
      update();
    }

    function openHead(layer, head, keepFocus) {
      state.layer = layer;
      state.head = head;
      update();
      if (keepFocus) cellAt(layer, head).focus();
    }

    function cellAt(layer, head) {
      return grid.querySelector("[data-layer='" + (layer + 1) + "'][data-head='" + (head + 1) + "']");
    }

    function update() {
      var sentence = data.sentences[state.sentence];
      var tokens = sentence.tokens;
      var size = tokens.length;
      var heads = loaded[state.sentence];
      if (!heads) return;
      var shown = shownTokens(tokens, state.hideSpecial);
      var place = {};  // token index -> its row among the tokens on view
      shown.forEach(function (j, k) { place[j] = k; });
      var row = shownRow(attentionRow(heads[state.layer][state.head], state.token, size), shown);
      layerPick.box.value = String(state.layer + 1);
      headPick.box.value = String(state.head + 1);
      hideBox.checked = state.hideSpecial;

      Array.prototype.forEach.call(left.children, function (button, i) {
        var current = i === state.token;
        button.hidden = !(i in place);
        button.setAttribute("aria-pressed", String(current && state.pinned));
        button.toggleAttribute("data-selected", current);
        button.tabIndex = current ? 0 : -1;  // one tab stop; arrow keys move within
      });
      right.setAttribute("aria-label", format(text.targets, {
        token: tokens[state.token], layer: state.layer + 1, head: state.head + 1 }));
      Array.prototype.forEach.call(right.children, function (target, j) {
        target.hidden = !(j in place);
        target.setAttribute("data-weight", row[j].toFixed(3));
        target.style.setProperty("--weight", row[j]);
        target.lastChild.textContent = row[j].toFixed(2);
      });

      while (lines.firstChild) lines.removeChild(lines.firstChild);
      // One viewBox unit per token row; stretch the drawing to the token column's height.
      lines.style.height = left.getBoundingClientRect().height + "px";
      lines.setAttribute("viewBox", "0 0 100 " + shown.length);
      for (var j = 0; j < size; j++) {
        if (!(j in place) || row[j] < 0.01) continue;
        lines.appendChild(svgElement("line", {
          x1: 0, y1: place[state.token] + 0.5, x2: 100, y2: place[j] + 0.5,
          "stroke-width": 1 + 6 * row[j], "stroke-opacity": Math.min(1, 0.15 + row[j]),
          "vector-effect": "non-scaling-stroke" }));
      }
      var order = shown.slice().sort(function (a, b) { return row[b] - row[a]; }).slice(0, 3);
      readout.textContent = format(text.readout, {
        layer: state.layer + 1, head: state.head + 1, token: tokens[state.token],
        top: order.map(function (k) { return "“" + tokens[k] + "” " + row[k].toFixed(2); }).join(text.separator),
      }) + (shown.length < size ? text.renormalised : "");
      hint.textContent = state.pinned ? text.pinned : text.preview;
      drawOverview(heads, tokens, shown);
      writeUrl();
    }

    function drawOverview(heads, tokens, shown) {
      var size = tokens.length;
      overviewTitle.textContent = format(text.overview, {
        count: data.layers * data.heads, token: tokens[state.token] });
      range(data.layers).forEach(function (l) {
        range(data.heads).forEach(function (h) {
          var row = shownRow(attentionRow(heads[l][h], state.token, size), shown);
          var cell = cellAt(l, h);
          var chart = cell.firstChild;
          chart.setAttribute("viewBox", "0 0 " + shown.length + " 1");
          while (chart.firstChild) chart.removeChild(chart.firstChild);
          shown.forEach(function (j, k) {
            if (row[j] < 0.02) return;
            chart.appendChild(svgElement("rect", {
              x: k + 0.1, width: 0.8, y: 1 - row[j], height: row[j],
              "class": j === state.token ? "attention-explorer__bar--self" : "" }));
          });
          var top = strongest(row, shown);
          cell.setAttribute("aria-label", format(text.cell, {
            layer: l + 1, head: h + 1, top: tokens[top], weight: row[top].toFixed(2) }));
          var current = l === state.layer && h === state.head;
          cell.setAttribute("aria-current", String(current));
          cell.tabIndex = current ? 0 : -1;
        });
      });
    }

    // --- keys ------------------------------------------------------------------------------
    left.addEventListener("keydown", function (event) {
      var shown = shownTokens(data.sentences[state.sentence].tokens, state.hideSpecial);
      var at = Math.max(0, shown.indexOf(state.token));
      var go = function (k) { return function () { state.token = shown[clamp(k, 0, shown.length - 1)]; state.pinned = true; }; };
      var move = null;
      if (event.key === "ArrowLeft") move = go(at - 1);
      else if (event.key === "ArrowRight") move = go(at + 1);
      else if (event.key === "Home") move = go(0);
      else if (event.key === "End") move = go(shown.length - 1);
      else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && event.shiftKey) {
        var dl = event.key === "ArrowUp" ? -1 : 1;
        move = function () { state.layer = clamp(state.layer + dl, 0, data.layers - 1); };
      } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
        var dh = event.key === "ArrowUp" ? -1 : 1;
        move = function () { state.head = clamp(state.head + dh, 0, data.heads - 1); };
      }
      if (!move) return;
      event.preventDefault();
      move();
      update();
      left.children[state.token].focus();
    });

    grid.addEventListener("keydown", function (event) {
      var steps = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
      var step = steps[event.key];
      if (!step) return;
      event.preventDefault();
      openHead(clamp(state.layer + step[0], 0, data.layers - 1),
               clamp(state.head + step[1], 0, data.heads - 1), true);
    });

    // Restored from the URL on load; the browser's back and forward restore it too.
    window.addEventListener("popstate", function () {
      readUrl();
      load(state.sentence).then(function () { drawSentence(); update(); }, fail);
    });

    function fail() { root.textContent = text.missing; }

    // The selected token's row in view on arrival (a phone shows the page's opening first).
    function reveal() {
      var button = left.children[state.token];
      var box = button.getBoundingClientRect();
      // Scroll just enough to bring it to three quarters of the window's height.
      if (box.top < 0 || box.bottom > window.innerHeight) window.scrollBy(0, box.bottom - 0.75 * window.innerHeight);
    }

    readUrl();
    load(state.sentence).then(function () { drawSentence(); update(); reveal(); }, fail);
  }

  function start() {
    document.querySelectorAll(".attention-explorer").forEach(function (root) {
      // The build publishes the index and one file per sentence on this site (data-src).
      var source = new URL(root.dataset.src, window.location.href).toString();
      fetch(source)
        .then(function (response) {
          if (!response.ok) throw new Error(response.status);
          return response.json();
        })
        .then(function (data) { build(root, data, source); })
        .catch(function () { root.textContent = TEXT[language()].missing; });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
