"""The attention explorer: its data is the model's; the page shows the view its URL names,
pins tokens, answers the keyboard, shows all 72 heads, and passes axe, on a desktop and a phone."""

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = [1280, 390]


def explorer_data(results) -> dict:
    """The index with each sentence's attention read from its own file, as the page loads it."""
    folder = results("real_model.explorer").dir
    index = json.loads((folder / "attention.json").read_text(encoding="utf-8"))
    for sentence in index["sentences"]:
        sentence["attention"] = json.loads((folder / sentence["file"]).read_text(encoding="utf-8"))["attention"]
    return index


def row(data, sentence: int, layer: int, head: int, token: int) -> list[float]:
    """Attention of ``token`` in one head (0-based), decoded the way docs/assets/explorer.js does."""
    tokens = data["sentences"][sentence]["tokens"]
    encoded = data["sentences"][sentence]["attention"][layer][head]
    T = len(tokens)
    return [(DIGITS.index(encoded[2 * k]) * 36 + DIGITS.index(encoded[2 * k + 1])) / 1000
            for k in range(token * T, (token + 1) * T)]


def test_the_data_holds_every_head_of_every_sentence_as_rows_that_sum_to_one(results):
    data = explorer_data(results)
    assert (data["layers"], data["heads"]) == (6, 12)
    for s, sentence in enumerate(data["sentences"]):
        T = len(sentence["tokens"])
        assert sentence["tokens"][0] == "[CLS]" and sentence["tokens"][-1] == "[SEP]"
        for layer in range(6):
            for head in range(12):
                assert len(sentence["attention"][layer][head]) == 2 * T * T
                for token in range(T):
                    # T weights, each rounded to 0.0005 at most: the sum is 1 within T * 0.0005
                    assert sum(row(data, s, layer, head, token)) == pytest.approx(1, abs=T * 5e-4)


def test_the_explorer_holds_the_sentences_the_chapter_discusses(results):
    texts = [s["text"] for s in explorer_data(results)["sentences"]]
    for fragment in ("because it was too tired.", "because it was too wide.", "to the bank and looked at the money.",
                     "to the bank and looked at the river.", "because it was too big.", "because it was too small."):
        assert any(t.endswith(fragment) for t in texts), fragment
    assert len(texts) >= 12


def test_the_explorer_agrees_with_the_measurement_page(results):
    data = explorer_data(results)
    r = results("real_model.it_animal")
    tokens = data["sentences"][0]["tokens"]
    layer, head = int(r.number("resolver_layer")) - 1, int(r.number("resolver_head")) - 1
    weights = row(data, 0, layer, head, tokens.index("it"))
    assert weights[tokens.index("animal")] == pytest.approx(r.number("resolver_tired_to_animal"), abs=1e-3)


def test_the_chinese_page_calls_it_an_explorer_not_a_web_browser():
    root = Path(__file__).resolve().parents[3]
    for path in (root / "docs" / "zh" / "real-model" / "explorer.md", root / "docs" / "assets" / "explorer.js"):
        text = path.read_text(encoding="utf-8")
        assert "探索器" in text and "浏览器" not in text, path


# --- in the browser ------------------------------------------------------------------------------

def shown_weights(page) -> list[float]:
    values = page.locator(".attention-explorer__to [data-weight]").evaluate_all(
        "targets => targets.map(t => t.dataset.weight)")
    return [float(v) for v in values]


def url_state(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def token(page, index: int):
    return page.locator(f".attention-explorer__from button[data-index='{index}']")


def open_explorer(page, site_url, query="", lang_root="", width=1280):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site_url}{lang_root}real-model/explorer/{query}")
    page.wait_for_selector(".attention-explorer__cell")
    page.wait_for_load_state("networkidle")


def assert_clean(page):
    assert page.outside_requests == []
    assert page.console_errors == []
    assert page.failed_responses == []


@pytest.mark.remembered
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang_root, sentence_label", [("", "Sentence"), ("zh/", "句子")])
def test_a_link_with_sentence_layer_head_and_token_opens_that_exact_view(page, site_url, results,
                                                                         lang_root, sentence_label, width):
    data = explorer_data(results)
    r = results("real_model.it_animal")
    layer, head = int(r.number("resolver_layer")), int(r.number("resolver_head"))
    tokens = data["sentences"][1]["tokens"]           # "…because it was too wide."
    it = tokens.index("it")
    open_explorer(page, site_url, f"?s=1&l={layer}&h={head}&t={it}", lang_root, width)
    assert page.locator(".attention-explorer__control span").first.text_content() == sentence_label
    assert page.locator("select[data-role=sentence]").input_value() == "2"
    assert page.locator("select[data-role=layer]").input_value() == str(layer)
    assert page.locator("select[data-role=head]").input_value() == str(head)
    assert token(page, it).get_attribute("aria-pressed") == "true"
    assert shown_weights(page) == pytest.approx(row(data, 1, layer - 1, head - 1, it), abs=1e-3)
    # A token may be named by its text, as the chapter's pages do (t=it).
    open_explorer(page, site_url, f"?s=1&l={layer}&h={head}&t=it", lang_root, width)
    assert token(page, it).get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_clean(page)


@pytest.mark.remembered
def test_a_click_pins_a_token_hover_then_changes_nothing_and_a_second_click_unpins(page, site_url, results):
    data = explorer_data(results)
    open_explorer(page, site_url, "?s=0&l=1&h=1")
    tokens = data["sentences"][0]["tokens"]
    it, animal = tokens.index("it"), tokens.index("animal")
    token(page, animal).hover()                       # nothing pinned: hovering previews
    assert shown_weights(page) == pytest.approx(row(data, 0, 0, 0, animal), abs=1e-3)
    token(page, it).click()
    assert token(page, it).get_attribute("aria-pressed") == "true"
    assert url_state(page)["t"] == str(it)
    token(page, animal).hover()                       # pinned: the view stays on "it"
    assert shown_weights(page) == pytest.approx(row(data, 0, 0, 0, it), abs=1e-3)
    page.mouse.move(0, 0)
    token(page, it).click()                           # second click unpins
    assert token(page, it).get_attribute("aria-pressed") == "false"
    assert "t" not in url_state(page)
    token(page, animal).hover()
    assert shown_weights(page) == pytest.approx(row(data, 0, 0, 0, animal), abs=1e-3)
    assert_clean(page)


@pytest.mark.remembered
def test_arrow_keys_move_between_tokens_heads_and_layers_with_one_tab_stop(page, site_url, results):
    data = explorer_data(results)
    open_explorer(page, site_url, "?s=0&l=2&h=5&t=3")
    assert page.locator(".attention-explorer__from button[tabindex='0']").count() == 1
    token(page, 3).focus()
    page.keyboard.press("ArrowRight")
    assert url_state(page) == {"s": "0", "l": "2", "h": "5", "t": "4"}
    assert page.evaluate("document.activeElement.dataset.index") == "4"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert url_state(page)["t"] == "2"
    page.keyboard.press("ArrowDown")
    assert url_state(page)["h"] == "6"
    page.keyboard.press("Shift+ArrowDown")
    assert url_state(page)["l"] == "3"
    page.keyboard.press("Shift+ArrowUp")
    page.keyboard.press("ArrowUp")
    assert (url_state(page)["l"], url_state(page)["h"]) == ("2", "5")
    assert shown_weights(page) == pytest.approx(row(data, 0, 1, 4, 2), abs=1e-3)
    assert page.locator(".attention-explorer__from button[tabindex='0']").count() == 1
    assert_clean(page)


@pytest.mark.remembered
@pytest.mark.parametrize("width", WIDTHS)
def test_the_overview_shows_all_72_heads_for_the_token_and_a_click_opens_one(page, site_url, results, width):
    data = explorer_data(results)
    tokens = data["sentences"][0]["tokens"]
    it = tokens.index("it")
    open_explorer(page, site_url, f"?s=0&l=1&h=1&t={it}", width=width)
    cells = page.locator(".attention-explorer__cell")
    assert cells.count() == 72
    # Each small multiple names the token its head attends to most (its text alternative).
    label = page.locator(".attention-explorer__cell[data-layer='4'][data-head='7']").get_attribute("aria-label")
    weights = row(data, 0, 3, 6, it)
    assert f"“{tokens[weights.index(max(weights))]}”" in label
    page.locator(".attention-explorer__cell[data-layer='4'][data-head='7']").click()
    assert (url_state(page)["l"], url_state(page)["h"]) == ("4", "7")
    assert page.locator("select[data-role=layer]").input_value() == "4"
    assert page.locator(".attention-explorer__cell[aria-current='true']").get_attribute("data-head") == "7"
    assert shown_weights(page) == pytest.approx(weights, abs=1e-3)
    assert page.locator(".attention-explorer__cell[tabindex='0']").count() == 1
    page.keyboard.press("ArrowRight")                 # arrows move between heads in the grid
    assert (url_state(page)["l"], url_state(page)["h"]) == ("4", "8")
    box = page.locator(".attention-explorer__grid").bounding_box()
    assert box["x"] + box["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_clean(page)


SPECIAL = ("[CLS]", "[SEP]")


def renormalised(weights: list[float], tokens: list[str]) -> list[float]:
    """The row without [CLS] and [SEP], the rest scaled to sum to 1 (hidden tokens read 0)."""
    rest = sum(w for w, t in zip(weights, tokens) if t not in SPECIAL)
    return [0.0 if t in SPECIAL else w / rest for w, t in zip(weights, tokens)]


def change_sentence(page, index: int) -> None:
    """Pick sentence ``index`` (0-based), the pointer on the list as a reader's is, and wait
    until the page has drawn it."""
    page.locator("select[data-role=sentence]").hover()
    page.select_option("select[data-role=sentence]", str(index + 1))
    page.wait_for_function(f"new URLSearchParams(location.search).get('s') === '{index}'")


def selected_word(page) -> tuple[int, str]:
    selected = page.locator(".attention-explorer__from button[data-selected]")
    return int(selected.get_attribute("data-index")), selected.text_content()


@pytest.mark.remembered
@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_explorer_opens_on_its_recorded_head_with_the_it_row_in_view_and_the_recorded_weight(
        page, site_url, results, lang_root, width, height):
    data = explorer_data(results)
    r = results("real_model.explorer")
    layer, head = int(r.number("opening_layer")), int(r.number("opening_head"))
    tokens = data["sentences"][0]["tokens"]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{site_url}{lang_root}real-model/explorer/")
    page.wait_for_selector(".attention-explorer__cell")
    page.wait_for_load_state("networkidle")
    assert page.locator("select[data-role=layer]").input_value() == str(layer)
    assert page.locator("select[data-role=head]").input_value() == str(head)
    it = tokens.index("it")
    assert selected_word(page) == (it, "it")
    assert token(page, it).get_attribute("aria-pressed") == "true"
    box = token(page, it).bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= height, box
    # [CLS] and [SEP] hidden, the other weights renormalised, and the page says so.
    assert page.locator("input[data-role=hide-special]").is_checked()
    shown = page.locator(".attention-explorer__to li:visible .attention-explorer__word").all_text_contents()
    assert shown == [t for t in tokens if t not in SPECIAL]
    assert shown_weights(page) == pytest.approx(
        renormalised(row(data, 0, layer - 1, head - 1, it), tokens), abs=2e-3)
    assert url_state(page) == {"s": "0", "l": str(layer), "h": str(head), "t": str(it), "special": "hide"}
    # The weight the page and the home page cite for this view is the one the explorer shows.
    animal = page.locator(f".attention-explorer__to li >> nth={tokens.index('animal')}")
    assert animal.locator(".attention-explorer__word").text_content() == "animal"
    assert float(animal.get_attribute("data-weight")) == pytest.approx(r.number("opening_it_animal"), abs=1e-3)
    assert_clean(page)


def test_the_opening_head_gives_the_referent_the_most_attention_over_the_pronoun_sentences(results):
    # Recomputed from the published weights, as the explorer shows them ([CLS] and [SEP] hidden).
    data = explorer_data(results)
    r = results("real_model.explorer")
    referents = {0: "animal", 1: "street", 2: "trophy", 3: "suitcase", 7: "cat", 8: "bird", 9: "ship", 10: "bridge"}
    mean = {}
    for layer in range(6):
        for head in range(12):
            shares = []
            for s, word in referents.items():
                tokens = data["sentences"][s]["tokens"]
                shown = renormalised(row(data, s, layer, head, tokens.index("it")), tokens)
                shares.append(shown[tokens.index(word)])
            mean[layer + 1, head + 1] = sum(shares) / len(shares)
    best = max(mean, key=mean.get)
    assert best == (r.number("opening_layer"), r.number("opening_head"))
    assert mean[best] == pytest.approx(r.number("opening_to_referent_mean"), abs=1e-6)
    tokens = data["sentences"][0]["tokens"]
    raw = row(data, 0, best[0] - 1, best[1] - 1, tokens.index("it"))
    assert renormalised(raw, tokens)[tokens.index("animal")] == pytest.approx(r.number("opening_it_animal"), abs=1e-6)
    assert raw[tokens.index("animal")] == pytest.approx(r.number("opening_it_animal_with_special"), abs=5e-4)


@pytest.mark.remembered
def test_hiding_cls_and_sep_renormalises_the_other_weights_and_showing_them_restores_the_model(
        page, site_url, results):
    data = explorer_data(results)
    tokens = data["sentences"][0]["tokens"]
    it = tokens.index("it")
    open_explorer(page, site_url, f"?s=0&l=4&h=4&t={it}")
    toggle = page.locator("input[data-role=hide-special]")
    assert not toggle.is_checked()                    # a link without special=hide: the model's weights
    raw = row(data, 0, 3, 3, it)
    assert shown_weights(page) == pytest.approx(raw, abs=1e-3)
    toggle.check()
    assert shown_weights(page) == pytest.approx(renormalised(raw, tokens), abs=2e-3)
    assert sum(shown_weights(page)) == pytest.approx(1, abs=len(tokens) * 5e-4)
    assert page.locator(".attention-explorer__from button:visible").all_text_contents() == \
        [t for t in tokens if t not in SPECIAL]
    assert url_state(page)["special"] == "hide"
    toggle.uncheck()
    assert shown_weights(page) == pytest.approx(raw, abs=1e-3)
    assert "special" not in url_state(page)
    assert_clean(page)


@pytest.mark.remembered
def test_a_sentence_change_keeps_the_selected_word(page, site_url, results):
    data = explorer_data(results)
    first, trophy = data["sentences"][0]["tokens"], data["sentences"][2]["tokens"]
    because = first.index("because")
    open_explorer(page, site_url, "?s=0&l=1&h=1")
    token(page, because).hover()                      # selected by pointing, not pinned
    change_sentence(page, 2)
    assert selected_word(page) == (trophy.index("because"), "because")
    # A word that occurs twice keeps its occurrence: the second "the" stays the second.
    open_explorer(page, site_url, "?s=0&l=1&h=1")
    second_the = [i for i, t in enumerate(first) if t == "the"][1]
    token(page, second_the).click()
    change_sentence(page, 2)
    assert selected_word(page) == ([i for i, t in enumerate(trophy) if t == "the"][1], "the")
    assert token(page, selected_word(page)[0]).get_attribute("aria-pressed") == "true"
    assert_clean(page)


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_explorer_with_a_pinned_token_has_no_serious_accessibility_violation(page, site_url, lang_root):
    open_explorer(page, site_url, "?s=4&l=3&h=2&t=bank", lang_root, width=390)
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("""async () => (await axe.run(document.querySelector('.attention-explorer'),
        {resultTypes: ['violations']})).violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
    assert violations == []
    assert_clean(page)


def test_exercise_answers(results):
    r = results("real_model.explorer")
    # 1: the same model on the same sentence as the it-animal page: the same head and weight.
    source = results("real_model.it_animal")
    assert (r.number("exercise_it_animal_layer"), r.number("exercise_it_animal_head")) == \
        (source.number("source_best_layer"), source.number("source_best_head"))
    assert abs(r.number("exercise_it_animal_weight") - source.number("source_best_to_animal")) < 0.005
    # 2: a head is "right" on the pair only if it changes its preference with the last word;
    #    as on the source pair, fewer heads manage it than the 72 / 4 of coin-flipping heads.
    assert r.number("exercise_trophy_pair_right_heads") < 72 / 4
