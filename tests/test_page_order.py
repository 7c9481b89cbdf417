"""A claim's card follows the evidence it summarises, on the page that shows that evidence:
a card sits after the first number, figure or code the page cites from one of the claim's
experiments; a page that cites none of them shows the claim as a link to the page that
decides it (tools/pages/mkdocs_hooks.py), and so does a construction's page for a claim an
experiment elsewhere decides."""

from pathlib import Path

import pytest

from tools.pages import page_macros
from tools.verdicts import claims as registry
from tools.verdicts.ledger import deciding_experiment

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = registry.load()
PAGES = sorted((ROOT / "docs" / "en").rglob("*.md")) + sorted((ROOT / "docs" / "zh").rglob("*.md"))


def first_evidence(calls: list, snippets: set[str]) -> int | None:
    """Where (the call's place on the page) the page first cites a number, figure, text, data
    or code of one of ``snippets``."""
    return next((i for i, c in enumerate(calls)
                 if c.kind not in ("claim", "claims", "literature") and c.snippet in snippets), None)


def cards_before_their_evidence(text: str, claims=CLAIMS) -> list[str]:
    """Every full claim card of ``text`` that comes before its evidence (or has none on the page)."""
    wrong = []
    calls = page_macros.calls(text)
    for place, call in enumerate(calls):
        kind, target = call.kind, call.key if call.kind == "claim" else call.snippet
        if kind == "claim":
            claim = claims[target]
            snippets = {e.snippet for e in claim.experiments if e.snippet}
            if not snippets:
                continue                       # decided from papers: its evidence is the references
            cited = first_evidence(calls, snippets)
            if cited is None and deciding_experiment(claim):
                continue                       # shown as a link to the page that decides it
            if cited is None or cited > place:
                wrong.append(target)
        elif kind == "claims":
            for claim_id, claim in claims.items():
                mine = [e for e in claim.experiments if e.snippet == target]
                if not mine:
                    continue
                if all(e.kind == "construction" for e in mine) and deciding_experiment(claim):
                    continue                   # a construction illustrates it; a link to the deciding page
                cited = first_evidence(calls, {e.snippet for e in claim.experiments if e.snippet})
                if cited is None or cited > place:
                    wrong.append(claim_id)
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_every_claim_card_follows_its_evidence(page):
    assert cards_before_their_evidence(page.read_text(encoding="utf-8")) == []


def test_a_card_before_its_evidence_is_caught_and_a_link_or_a_card_after_it_is_not():
    card, value = '{{ claim("C02") }}', '{{ value("real_model.head_roles.coreference.n_pairs") }}'
    assert cards_before_their_evidence(f"{card}\n\n{value}\n") == ["C02"]
    assert cards_before_their_evidence(f"{value}\n\n{card}\n") == []
    assert cards_before_their_evidence(f"{card}\n") == []                  # no evidence here: a link
    # four_steps only illustrates C02 and C03 (a construction): their cards there are links,
    # while the claims it decides itself need its numbers first.
    assert cards_before_their_evidence('{{ claims("four_steps") }}\n') == ["C01", "C04"]
    assert cards_before_their_evidence('---\nsnippet: four_steps\n---\n\n{{ claims() }}\n') == ["C01", "C04"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_built_by_hand_shows_only_numbers_it_computes(lang):
    # four-steps is a construction: a number from the real model there would read as its own.
    text = (ROOT / "docs" / lang / "four-steps.md").read_text(encoding="utf-8")
    cited = {c.snippet for c in page_macros.calls(text) if c.kind in ("value", "figure", "text", "choose", "data")}
    assert cited == {"four_steps"}
