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
    with pytest.raises(registry.MissingMeasurement, match=r"snippets/three_roles/scaling/keys_16_128\.py recorded "
                                                          r"no number 'vanishing_ratio_keys16'"):
        registry.decide(claim, {"three_roles.scaling.keys_16_128.explosion_ratio_keys16": 4.0})


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
    trained = sorted({s for c in CLAIMS.values() for s in c.tested_snippets()})   # a planted arm counts draws
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
    # A case that did not hold is explained by the comparison that failed (heads >= 1 held and
    # decided nothing), the number beside the threshold the case needs, in words.
    assert ledger.reason(claim, why, PLANTED_RESULTS, "en") == (
        "No case of the rule holds, so the rule's default applies: *nuanced*. The *verified* case does not hold: the best "
        "head's accuracy is 65 %, where the case needs at least 75 %. Nor does the *refuted* case hold: "
        "heads that pass is 2, where the case needs exactly 0.")
    assert ledger.reason(claim, why, PLANTED_RESULTS, "zh") == (
        "规则里没有哪种情形成立，按这条规则的约定，归为“部分成立”。“证实”情形不成立：最好的头的准确率为 65 %，"
        "这一情形要求至少 75 %。“推翻”情形也不成立：通过检验的头数为 2，这一情形要求等于 0。")
    # The table's clause: each verdict's miss, the number once with what each verdict needed.
    assert ledger.because(claim, why, PLANTED_RESULTS, "en") == (
        "the best head's accuracy is 65 % (needs at least 75 % for *verified*); "
        "heads that pass is 2 (needs exactly 0 for *refuted*)")


def test_the_why_sentence_of_a_case_that_held_gives_a_computed_threshold_with_its_value():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.hits >= 0.75 * ch.s.n_seeds or ch.s.best >= 0.9")
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert why.held == 0 and len(why.cases[0].checks) == 1   # the or's first part decided it
    assert ledger.reason(claim, why, PLANTED_RESULTS, "en") == (
        "The *verified* case of the rule holds: seeds that show it is 7, where the case needs at least "
        "three quarters of seeds, which is 6.")
    assert ledger.reason(claim, why, PLANTED_RESULTS, "zh") == (
        "规则的“证实”情形成立：出现它的种子数为 7，这一情形要求至少种子数的四分之三，即 6。")
    assert ledger.because(claim, why, PLANTED_RESULTS, "en") == "seeds that show it is 7 (needs at least 6)"


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
        "No case of the rule holds, so the rule's default applies: *nuanced*. The *verified* case does not hold: the number "
        "of the rule's 3 values between 8 and 64 is 0, where the case needs at least 2.")


# --- A "why" a student can read: each case named once, no brackets in brackets ----------

CASE_NAME = {"en": re.compile(r"(?:\b(first|second|third|fourth|fifth|sixth) )?\*([a-z, ]+)\* cases?\b"),
             "zh": re.compile(r"(第[一二三四五六]个)?“([^”]+)”情形")}


def case_names(sentence: str, lang: str) -> list[str]:
    """Every case a "why" names, as written: "second nuanced"; a name that runs several
    verdicts together ("the *open, verified* case", "“待定、证实”情形") names each of them."""
    return [f"{rank or ''}{' ' if rank and lang == 'en' else ''}{verdict.strip()}"
            for rank, verdicts in CASE_NAME[lang].findall(sentence)
            for verdict in re.split(r"[,、]", verdicts)]


def repeated_cases(sentence: str, lang: str) -> list[str]:
    """The case names a sentence gives more than once."""
    names = case_names(sentence, lang)
    return sorted({name for name in names if names.count(name) > 1})


def nested_brackets(sentence: str) -> list[str]:
    """Brackets opened inside brackets ("（0.018）" inside "（≥ …（独立的头）"), half- or full-width.
    A function's argument ("v(referent)", "sqrt(d)") is not a bracket of the prose."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(sentence):
        if char == "（" or (char == "(" and not re.match(r"[A-Za-z0-9_]", sentence[i - 1:i])):
            depth += 1
            start = i if depth == 1 else start
            if depth == 2:
                found.append(sentence[max(0, start - 10):i + 12])
        elif char == "(":                      # a function's argument: its ")" closes it
            depth += 100
        elif char in ")）" and depth:
            depth -= 100 if depth >= 100 else 1
    return found


def test_the_readability_checks_catch_the_old_why_sentences():
    """The forms issue 36 quoted: a case named twice, brackets in brackets, 1 / 0 for yes / no."""
    old_zh = ("规则的“推翻”情形成立：…为 0（≤ 0.25 × 每组的随机种子数（= 2））；先检查的“部分成立、部分成立”情形不成立。"
              "就“推翻”而言，…为 0.140，不满足 ≤ 留出句子上的损失，各种子的平均（独立的头）（0.018）。")
    old_en = "The *refuted* case of the rule holds: x is 0 (≤ 2); the *nuanced, nuanced* case, checked first, does not (y)."
    assert repeated_cases(old_zh, "zh") == ["部分成立"]
    assert repeated_cases(old_en, "en") == ["nuanced"]
    assert repeated_cases("The *nuanced* case holds. Nor does the *nuanced* case hold.", "en") == ["nuanced"]
    assert nested_brackets(old_zh) != [] and nested_brackets("the mean (≤ 0.25 × seeds (= 2))") != []
    assert nested_brackets("v(referent) is 0.09 (sqrt(d) is 2), p (one-sided) is 0.01") == []
    assert repeated_cases("The second *nuanced* case holds. Checked before it, the first *nuanced* case does not hold.", "en") == []


def test_a_rule_with_two_cases_of_one_verdict_names_each_once():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.heads >= 3")
    claim.cases = [("nuanced", "ch.s.heads >= 3"), ("nuanced", "ch.s.hits >= 0.75 * ch.s.n_seeds"),
                   ("refuted", "ch.s.heads == 0")]
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert why.held == 1
    en = ledger.reason(claim, why, PLANTED_RESULTS, "en")
    zh = ledger.reason(claim, why, PLANTED_RESULTS, "zh")
    assert en == ("The second *nuanced* case of the rule holds: seeds that show it is 7, where the case needs "
                  "at least three quarters of seeds, which is 6. Checked before it, the first *nuanced* case "
                  "does not hold: heads that pass is 2, where the case needs at least 3.")
    assert zh == ("规则的第二个“部分成立”情形成立：出现它的种子数为 7，这一情形要求至少种子数的四分之三，即 6。"
                  "在它之前检查的第一个“部分成立”情形不成立：通过检验的头数为 2，这一情形要求至少 3。")
    assert repeated_cases(en, "en") == repeated_cases(zh, "zh") == []
    claim.cases[1] = ("nuanced", "ch.s.hits >= ch.s.n_seeds")          # now no case holds
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    en = ledger.reason(claim, why, PLANTED_RESULTS, "en")
    assert "The first *nuanced* case does not hold" in en and "Nor does the second *nuanced* case hold" in en
    assert "where the case needs the same as seeds, which is 8" not in en            # >= , not ==
    assert "where the case needs at least seeds, which is 8" in en
    assert repeated_cases(en, "en") == []


def test_a_failed_or_reads_as_alternatives_and_a_yes_no_number_as_yes_or_no():
    from tools.verdicts import ledger

    results = {"ch.s": {"numbers": {**PLANTED_RESULTS["ch.s"]["numbers"], "shown": {
        "value": 1.0, "text": "1", "about": {"en": "(a) shown: two roles (1 yes, 0 no)",
                                            "zh": "(a) 成立：两种角色（1 是，0 否）"}}}}}
    claim = planted_claim("ch.s.best >= 0.9 or ch.s.heads >= 3")
    claim.cases[1] = ("refuted", "ch.s.shown < 1")
    why = registry.explain(claim, registry.measurements(results, {}))
    assert [c.either for c in why.cases[0].checks] == [why.cases[0].checks[0].either] * 2 != [0, 0]
    en, zh = (ledger.reason(claim, why, results, lang) for lang in ("en", "zh"))
    assert ("the best head's accuracy is 65 %, where the case needs at least 90 %; or heads that pass is 2, "
            "where the case needs at least 3.") in en
    assert "Nor does the *refuted* case hold: (a) shown: two roles — yes, where the case needs no." in en
    assert "“推翻”情形也不成立：(a) 成立：两种角色——是，而这一情形要求否。" in zh
    assert "1 yes" not in en and "1 是" not in zh and nested_brackets(zh) == []


def test_a_threshold_keeps_the_digits_rounding_would_lose():
    from tools.verdicts import ledger

    assert ledger._number_like(7.5, "8", exact=True) == "7.5" and ledger._number_like(6.0, "8", exact=True) == "6"
    assert ledger._number_like(0.0001, "0%", exact=True) == "0.01%"
    assert ledger._number_like(1 / 3, "50 %", exact=True) == "33.33 %"
    assert ledger._number_like(0.152778, "61%") == "15%"            # a measured value keeps the recorded digits
    claim = planted_claim("ch.s.heads >= 0.75 * ch.s.n_seeds + 1.5")   # 7.5: 8 would hide that 7 < 7.5
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert "which is 7.5" in ledger.reason(claim, why, PLANTED_RESULTS, "en")


def test_the_table_clause_leaves_out_what_every_case_checks_and_says_why_a_verdict_shows_open():
    from tools.verdicts import ledger

    claim = planted_claim("ch.s.n_seeds >= 8 and ch.s.heads >= 3")
    claim.cases = [("verified", "ch.s.n_seeds >= 8 and ch.s.heads >= 3"),
                   ("nuanced", "ch.s.n_seeds >= 8 and ch.s.best >= 0.6")]
    why = registry.explain(claim, registry.measurements(PLANTED_RESULTS, {}))
    assert ledger.because(claim, why, PLANTED_RESULTS, "en") == "the best head's accuracy is 65 % (needs at least 60 %)"
    assert ledger.because(claim, why, PLANTED_RESULTS, "zh") == "最好的头的准确率为 65 %（要求至少 60 %）"
    undecided = registry.Assessment("open", "nuanced", 0.84, {"ch.s": 8}, True)
    assert ledger.because(claim, why, PLANTED_RESULTS, "en", undecided) == (
        "the rule gives *nuanced*, but in only 84 % of resamplings of the seeds (90 % needed)")
    unpowered = registry.Assessment("open", "refuted", None, {}, False, 0.456, True)
    assert ledger.because(claim, why, PLANTED_RESULTS, "zh", unpowered) == (
        "规则给出“推翻”，但人为植入论断大小的效应，同一检验只在 45% 的抽样里检出它（需要 80%）")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_registered_rules_why_names_each_case_once_without_brackets_in_brackets(lang):
    """Every claim's "why" and table clause, on each of its rule's examples (every verdict it
    can give; names are the registry's keys here, the built site's words in test_terminology)."""
    from tools.verdicts import ledger

    found = []
    for claim_id, claim in CLAIMS.items():
        for verdict, numbers in claim.examples.items():
            why = registry.explain(claim, numbers)
            for text in (ledger.reason(claim, why, {}, lang), ledger.because(claim, why, {}, lang)):
                found += [f"{claim_id} ({verdict}): repeats {name}" for name in repeated_cases(text, lang)]
                found += [f"{claim_id} ({verdict}): {part!r}" for part in nested_brackets(text)]
    assert found == []


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
