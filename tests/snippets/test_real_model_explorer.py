"""The attention explorer: its data is the model's, and the page shows the head and token picked."""

import json

import pytest

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def explorer_data(results) -> dict:
    return json.loads((results("real_model_explorer").dir / "attention.json").read_text(encoding="utf-8"))


def row(data, sentence: int, layer: int, head: int, token: int) -> list[float]:
    """Attention of ``token`` in one head, decoded the way docs/assets/explorer.js decodes it."""
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


def test_the_explorer_agrees_with_the_measurement_page(results):
    data = explorer_data(results)
    r = results("real_model_it_animal")
    tokens = data["sentences"][0]["tokens"]
    layer, head = int(r.number("follower_layer")) - 1, int(r.number("follower_head")) - 1
    weights = row(data, 0, layer, head, tokens.index("it"))
    assert weights[tokens.index("animal")] == pytest.approx(r.number("follower_tired_to_animal"), abs=1e-3)


def shown_weights(page) -> list[float]:
    values = page.locator(".attention-explorer__to [data-weight]").evaluate_all(
        "targets => targets.map(t => t.dataset.weight)")
    return [float(v) for v in values]


@pytest.mark.parametrize("lang_root, sentence_label", [("", "Sentence"), ("zh/", "句子")])
def test_picking_a_head_and_hovering_a_token_shows_that_heads_row(page, site_url, results,
                                                                  lang_root, sentence_label):
    data = explorer_data(results)
    r = results("real_model_it_animal")
    page.goto(f"{site_url}{lang_root}real-model/explorer/")
    page.wait_for_load_state("networkidle")
    assert page.locator(".attention-explorer__control span").first.text_content() == sentence_label
    tokens = data["sentences"][1]["tokens"]            # "…because it was too wide."
    page.select_option("select[data-role=sentence]", value="2")
    heads = [(int(r.number("follower_layer")), int(r.number("follower_head"))),
             (int(r.number("seed_best_layer")), int(r.number("seed_best_head")))]
    seen = []
    for layer, head in heads:
        page.select_option("select[data-role=layer]", value=str(layer))
        page.select_option("select[data-role=head]", value=str(head))
        for word in ("it", "street"):
            token = tokens.index(word)
            page.hover(f".attention-explorer__from button[data-index='{token}']")
            assert page.locator(f".attention-explorer__from button[data-index='{token}']") \
                .get_attribute("aria-pressed") == "true"
            shown = shown_weights(page)
            assert shown == pytest.approx(row(data, 1, layer - 1, head - 1, token), abs=1e-3)
            seen.append(shown)
    assert all(a != b for i, a in enumerate(seen) for b in seen[i + 1:]), "rows should differ"
    assert page.outside_requests == []
    assert page.console_errors == []
    assert page.failed_responses == []


def test_the_explorer_fits_a_phone_and_answers_a_tap(page, site_url):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site_url}zh/real-model/explorer/")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    token = page.locator(".attention-explorer__from button[data-index='2']")
    token.click()
    assert token.get_attribute("aria-pressed") == "true"
    assert page.locator(".attention-explorer__lines line").count() >= 1
    assert "第" in page.locator(".attention-explorer__readout").text_content()
    assert page.outside_requests == []
