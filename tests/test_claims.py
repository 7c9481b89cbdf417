"""The claims registry: every rule can reach each verdict it names, reads only numbers some
experiment records, and a construction never verifies what models do. Then: on this
build's own runs, every claim gets exactly one verdict."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.verdicts import claims as registry  # noqa: E402
from tools.running import snippet_runner  # noqa: E402

CLAIMS = registry.load()
SNIPPETS = {snippet_runner.name_of(path) for path in snippet_runner.discover()}


def test_registry_has_every_claim_from_c01_in_order():
    ids = list(CLAIMS)
    assert ids == [f"C{i:02d}" for i in range(1, len(ids) + 1)]


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_rule_reaches_every_verdict_it_names(claim_id):
    claim = CLAIMS[claim_id]
    if not claim.cases:  # undecided until an experiment exists: the rule can only say "open"
        assert claim.otherwise == "open" and registry.decide(claim, {}) == "open"
        return
    assert set(claim.examples) == claim.reachable(), \
        f"{claim_id}: give one example measurement set per verdict the rule can give"
    for verdict, numbers in claim.examples.items():
        assert registry.decide(claim, numbers) == verdict, f"{claim_id}: example for {verdict}"


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_rule_reads_only_its_own_experiments(claim_id):
    claim = CLAIMS[claim_id]
    listed = {e.snippet or e.reference for e in claim.experiments}
    for name in claim.names():
        source, _, key = name.rpartition(".")
        assert source in listed, f"{claim_id}: the rule reads {name}; list {source} under experiments"
        literature = {e.reference: e for e in claim.experiments if e.kind == "literature"}
        if source in literature:
            assert key in literature[source].numbers, f"{claim_id}: {source} reports no '{key}'"
    for experiment in claim.experiments:
        if experiment.snippet:
            assert experiment.snippet in SNIPPETS, f"{claim_id}: no snippets/{experiment.snippet}.py"


@pytest.mark.parametrize("claim_id", [c for c, claim in CLAIMS.items() if claim.type == "empirical"])
def test_a_construction_alone_never_verifies_what_models_do(claim_id):
    claim = CLAIMS[claim_id]
    kinds = {e.snippet or e.reference: e.kind for e in claim.experiments}
    for verdict, condition in claim.cases:
        if verdict != "verified":
            continue
        read = {name.rpartition(".")[0] for name in registry._names(registry._parse(claim_id, condition))}
        assert {kinds[s] for s in read} & {"trained", "real", "literature"}, \
            f"{claim_id}: 'verified' must rest on a trained or real model (or the literature)"


def test_a_missing_measurement_names_the_snippet_and_the_key():
    claim = CLAIMS["C05"]
    with pytest.raises(registry.MissingMeasurement, match=r"snippets/three_roles/scaling\.py recorded no number "
                                                          r"'vanishing_ratio_keys16'"):
        registry.decide(claim, {"three_roles.scaling.explosion_ratio_keys16": 4.0})


def test_a_rule_may_not_run_code(tmp_path):
    bad = tmp_path / "claims.yml"
    bad.write_text("C01:\n  source: [a-1]\n  type: definitional\n  en: x\n  zh: x\n"
                   "  rule:\n    en: x\n    zh: x\n    cases:\n"
                   "      - verified: \"__import__('os').system('true')\"\n    otherwise: open\n",
                   encoding="utf-8")
    with pytest.raises(registry.RegistryError):
        registry.load(bad)


def test_a_real_model_claim_must_say_what_it_is_compared_with(tmp_path):
    entry = ("C01:\n  title: {en: t, zh: t}\n  source: [a-1]\n  type: empirical\n  en: x\n  zh: x\n"
             "  experiments:\n    - {snippet: real_model.head_roles.roles, kind: real}\n"
             "  rule:\n    en: x\n    zh: x\n    otherwise: open\n")
    bad = tmp_path / "claims.yml"
    bad.write_text(entry, encoding="utf-8")
    with pytest.raises(registry.RegistryError, match="baseline"):
        registry.load(bad)
    bad.write_text(entry.replace("  en: x\n  zh: x\n  experiments",
                                 "  baseline: {en: chance 1/2, zh: 偶然水平 1/2}\n  en: x\n  zh: x\n  experiments"),
                   encoding="utf-8")
    assert registry.load(bad)["C01"].baseline == {"en": "chance 1/2", "zh": "偶然水平 1/2"}


def test_every_claim_gets_one_verdict_from_this_build(snippet_outcomes):
    results = {name: snippet_runner.load_results(o) for name, o in snippet_outcomes.items()}
    verdicts = registry.verdicts(results, CLAIMS)
    assert set(verdicts) == set(CLAIMS)
    assert set(verdicts.values()) <= set(registry.VERDICTS)


def test_trained_experiments_count_over_at_least_eight_random_seeds(results):
    trained = sorted({e.snippet for c in CLAIMS.values() for e in c.experiments if e.kind == "trained"})
    for name in trained:
        assert results(name).number("n_seeds") >= 8, f"snippets/{name.replace('.', '/')}.py: fewer than 8 seeds"


def test_source_sections_named_by_claims_exist_on_the_sources_page():
    from tools.verdicts import ledger

    for lang in ("en", "zh"):
        page = ROOT / "docs" / lang / "sources.md"
        anchors = set(re.findall(r"\{#([\w-]+)\}", page.read_text(encoding="utf-8"))) if page.is_file() else set()
        for claim_id, claim in CLAIMS.items():
            for section in claim.source:
                assert section in ledger.SECTIONS, f"{claim_id}: unknown source section {section}"
                if page.is_file():
                    assert section in anchors, f"docs/{lang}/sources.md has no section {{#{section}}}"


# --- Why a verdict: the case that held, each number against its threshold -----------------

@pytest.mark.parametrize("claim_id", [c for c, claim in CLAIMS.items() if claim.cases])
def test_the_explanation_gives_the_rules_verdict_and_the_comparisons_behind_it(claim_id):
    claim = CLAIMS[claim_id]
    for verdict, numbers in claim.examples.items():
        why = registry.explain(claim, numbers)
        assert why.verdict == registry.decide(claim, numbers) == verdict
        for index, case in enumerate(why.cases):
            assert case.checks, f"{claim_id}: a case is explained by at least one comparison"
            if index == why.held:                     # the case that held: every comparison it names holds
                assert case.holds and all(check.holds for check in case.checks)
            else:                                     # a case that did not: one comparison it names fails
                assert not case.holds and not all(check.holds for check in case.checks)
        assert why.held is None or why.held == len(why.cases) - 1


def planted_claim(condition: str, otherwise: str = "nuanced") -> registry.Claim:
    return registry.Claim(id="C99", title={"en": "t", "zh": "t"}, source=[], type="empirical",
                          text={"en": "", "zh": ""}, experiments=[], rule_text={"en": "", "zh": ""},
                          cases=[("verified", condition), ("refuted", "ch.s.heads == 0")],
                          otherwise=otherwise, examples={})


PLANTED_RESULTS = {"ch.s": {"numbers": {  # a snippet named by its module path
    "heads": {"value": 2.0, "text": "2", "about": {"en": "heads that pass", "zh": "通过检验的头数"}},
    "best": {"value": 0.65, "text": "65 %", "about": {"en": "the best head's accuracy", "zh": "最好的头的准确率"}},
    "n_seeds": {"value": 8.0, "text": "8", "about": {"en": "seeds", "zh": "种子数"}},
    "hits": {"value": 7.0, "text": "7", "about": {"en": "seeds that show it", "zh": "出现它的种子数"}}}}}


def test_the_why_sentence_says_which_case_failed_and_each_number_against_its_threshold():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.heads >= 1 and ch.s.best >= 0.75")
    numbers = registry.measurements(PLANTED_RESULTS, {})
    why = registry.explain(claim, numbers)
    assert ledger.reason(claim, why, PLANTED_RESULTS, "en") == (
        "No case of the rule holds, so it gives *nuanced*: for *verified*, heads that pass is 2 (≥ 1), "
        "but the best head's accuracy is 65 %, not ≥ 75 %; for *refuted*, heads that pass is 2, not = 0.")
    assert ledger.reason(claim, why, PLANTED_RESULTS, "zh") == (
        "规则的各种情形都不成立，因此给出“部分成立”。就“证实”而言，通过检验的头数为 2（≥ 1）；"
        "但最好的头的准确率为 65 %，不满足 ≥ 75 %。就“推翻”而言，通过检验的头数为 2，不满足 = 0。")


def test_the_why_sentence_of_a_case_that_held_gives_a_computed_threshold_with_its_value():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.hits >= 0.75 * ch.s.n_seeds or ch.s.best >= 0.9")
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert why.held == 0 and len(why.cases[0].checks) == 1   # the or's first part decided it
    assert ledger.reason(claim, why, PLANTED_RESULTS, "en") == (
        "The *verified* case of the rule holds: seeds that show it is 7 (≥ 0.75 × seeds (= 6)).")


def test_within_counts_the_values_in_a_closed_range():
    assert registry.within(8, 64, 8, 64, 7, 65, 30) == 3       # both ends included
    assert registry.within(8, 64) == 0
    claim = planted_claim("within(8, 64, ch.s.heads, ch.s.best, ch.s.hits) >= 2")
    numbers = registry.measurements(PLANTED_RESULTS, {})        # heads 2, best 0.65, hits 7
    assert registry.decide(claim, numbers) == "nuanced"          # none of the three in [8, 64]
    assert registry.decide(claim, {**numbers, "ch.s.heads": 8, "ch.s.hits": 64}) == "verified"


def test_the_why_sentence_says_what_within_counts():
    from tools.verdicts import ledger

    claim = planted_claim("within(8, 64, ch.s.heads, ch.s.best, ch.s.hits) >= 2")
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert ledger.reason(claim, why, PLANTED_RESULTS, "en").startswith(
        "No case of the rule holds, so it gives *nuanced*: for *verified*, the number of the "
        "rule's 3 values between 8 and 64 is 0, not ≥ 2")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_why_sentence_names_a_papers_numbers_in_words_not_by_their_keys(lang):
    """A rule that reads a paper's own numbers (michel2019.prunable_share_wmt) says what they
    are and whose they are, not the registry's keys ("prunable share wmt (michel2019)")."""
    from tools.verdicts import ledger

    raw = []
    for claim_id, claim in CLAIMS.items():
        papers = [e for e in claim.experiments if e.kind == "literature"]
        keys = {e.reference for e in papers} | {name for e in papers for key in e.numbers
                                                 for name in (key, key.replace("_", " "))}
        for verdict, numbers in claim.examples.items():
            sentence = ledger.reason(claim, registry.explain(claim, numbers), {}, lang)
            raw += [f"{claim_id} ({verdict}): {key!r} in {sentence[:80]!r}" for key in keys if key in sentence]
    assert raw == []


def test_the_literature_table_lists_each_papers_numbers_under_their_labels():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.heads >= 1")
    claim.experiments = [
        registry.Experiment(kind="literature", reference="vaswani2017",
                            numbers={"heads_base": 8.0, "heads_big": 16.0},
                            labels={"heads_base": "Transformer base"}),
        registry.Experiment(kind="trained", snippet="ch.s")]
    table = ledger.literature_table(claim, "en", "../references.md").splitlines()
    assert table[0] == "| Paper | Model | Value |"
    assert table[2] == "| [Vaswani et al. (2017)](../references.md#vaswani2017) | Transformer base | 8 |"
    assert table[3] == "| [Vaswani et al. (2017)](../references.md#vaswani2017) | heads big | 16 |"
    assert len(table) == 4                                       # the trained experiment adds no row
    claim.experiments = claim.experiments[1:]
    with pytest.raises(ValueError):
        ledger.literature_table(claim, "en", None)


def test_a_computed_threshold_without_a_recorded_number_to_round_like_keeps_four_digits():
    from tools.verdicts import ledger

    assert ledger._plain(1 / 3) == "0.333" and ledger._plain(2 / 3) == "0.667"
    assert [ledger._plain(v) for v in (0.975, 18.75, 6.0, 1234.5, 0.0)] == ["0.975", "18.75", "6", "1234.5", "0"]


def test_a_related_claim_must_be_another_claim_of_the_registry(tmp_path):
    entry = ("C01:\n  title: {en: t, zh: t}\n  source: [a-1]\n  type: empirical\n  en: x\n  zh: x\n"
             "  related: [RELATED]\n  rule:\n    en: x\n    zh: x\n    otherwise: open\n"
             "C02:\n  title: {en: u, zh: u}\n  source: [a-1]\n  type: empirical\n  en: y\n  zh: y\n"
             "  rule:\n    en: y\n    zh: y\n    otherwise: open\n")
    bad = tmp_path / "claims.yml"
    for wrong in ("C03", "C01"):
        bad.write_text(entry.replace("RELATED", wrong), encoding="utf-8")
        with pytest.raises(registry.RegistryError, match="related"):
            registry.load(bad)
    bad.write_text(entry.replace("RELATED", "C02"), encoding="utf-8")
    assert registry.load(bad)["C01"].related == ["C02"]
