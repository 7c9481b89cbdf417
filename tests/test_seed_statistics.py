"""Numbers over random seeds, their resampling, and the verdicts built on them
(snippets/explainer/report.py, tools/verdicts/claims.py): known answers on small hand-made inputs."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets"))
from tools.verdicts import claims as registry  # noqa: E402
from explainer import kernels  # noqa: E402
from explainer.report import Report, all_word, over_seeds, share_word  # noqa: E402


def test_the_share_word_of_a_count_gives_its_known_answer():
    # more than half is "most", exactly half "half", fewer "few" (of an even and an odd n)
    assert [share_word(k, 8) for k in (0, 3, 4, 5, 8)] == ["few", "few", "half", "most", "most"]
    assert [share_word(k, 5) for k in (2, 3)] == ["few", "most"]
    assert share_word(2.5, 5) == "half"
    assert [all_word(k, 8) for k in (0, 1, 7, 8)] == ["none", "some", "some", "all"]
    with pytest.raises(ValueError):
        share_word(0, 0)


def test_a_category_is_one_plain_word(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLAINER_OUTPUT_DIR", str(tmp_path))
    report = Report("demo")
    assert report.category("link", share_word(6, 8)) == "most"
    for word in ("In most seeds", "Most", "", "most!"):
        with pytest.raises(ValueError):
            report.category("link", word)
    import json
    assert json.loads(report.save().read_text(encoding="utf-8"))["categories"] == {"link": "most"}


def test_each_aggregate_over_seeds_gives_its_known_answer():
    values = [1.0, 2.0, 3.0, 6.0]
    assert over_seeds(values, "mean") == 3.0
    assert over_seeds(values, "min") == 1.0 and over_seeds(values, "max") == 6.0
    assert over_seeds(values, "std") == pytest.approx(math.sqrt(3.5))     # population std
    assert over_seeds([1, 0, 1, 1], "count") == 3.0
    # P(X >= 2) for X ~ Binomial(3, 1/2) = (3 + 1) / 8
    assert over_seeds([1, 1, 0], "binomial_p", chance=0.5) == pytest.approx(0.5)
    # mean 3, sample std sqrt(14/3), t(3) quantile 3.182446: 3 -+ 3.182446 * sqrt(14/3) / 2
    half = 3.182446 * math.sqrt(14 / 3) / 2
    assert over_seeds(values, "ci95_low") == pytest.approx(3 - half, rel=1e-6)
    assert over_seeds(values, "ci95_high") == pytest.approx(3 + half, rel=1e-6)
    assert over_seeds([0, 0, 0], "binomial_p", chance=0.25) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        over_seeds(values, "median")


def test_a_count_of_seeds_past_a_line_counts_strictly_or_not_as_named_and_never_a_nan():
    values = [-0.2, 0.0, 0.5, 1.0, math.nan]               # the last seed had nothing to measure
    assert over_seeds(values, "count_above", line=0.0) == 2.0
    assert over_seeds(values, "count_at_least", line=0.0) == 3.0
    assert over_seeds(values, "count_below", line=0.0) == 1.0
    assert over_seeds(values, "count_at_most", line=0.0) == 2.0
    assert over_seeds(values, "count_at_least", line=0.5) == 2.0
    assert over_seeds([math.nan] * 3, "count_below", line=1.0) == 0.0


def test_a_number_over_seeds_must_equal_the_aggregate_of_its_per_seed_values(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLAINER_OUTPUT_DIR", str(tmp_path))
    report = Report("t")
    report.number("wins", 2, "{:.0f}", per_seed=[1, 0, 1], of="count")
    assert report.numbers["wins"]["per_seed"] == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="per-seed"):
        report.number("wins_wrong", 3, "{:.0f}", per_seed=[1, 0, 1], of="count")
    # A count past a line keeps the measurement and its line; without the line it is refused.
    report.number("gains", 2, kind="count", per_seed=[0.3, -0.1, 0.2], of="count_above", line=0.0)
    assert report.numbers["gains"]["per_seed"] == [0.3, -0.1, 0.2] and report.numbers["gains"]["line"] == 0.0
    with pytest.raises(ValueError, match="line"):
        report.number("gains_lineless", 2, kind="count", per_seed=[0.3, -0.1, 0.2], of="count_above")
    from explainer.seeds import report_seeds_past
    assert report_seeds_past(report, "fewer", [0.25, -0.5, float("nan")], of="count_below", line=0.0) == 1
    assert report.numbers["fewer"]["of"] == "count_below" and report.numbers["fewer"]["value"] == 1.0


def results(per_seed: dict[str, list[float]], n: int) -> dict:
    """A fake snippet 'toy' that recorded counts over ``n`` seeds."""
    numbers = {"n_seeds": {"value": float(n), "text": str(n)}}
    for key, values in per_seed.items():
        numbers[key] = {"value": float(sum(values)), "text": "", "per_seed": values, "of": "count"}
    return {"toy": {"numbers": numbers}}


def claim(cap: int = 32) -> registry.Claim:
    return registry.Claim(
        id="C99", title={"en": "", "zh": ""}, source=[], type="empirical", text={"en": "", "zh": ""},
        experiments=[registry.Experiment(kind="trained", snippet="toy")],
        rule_text={"en": "", "zh": ""},
        cases=[("verified", "toy.wins >= 0.75 * toy.n_seeds"), ("refuted", "toy.wins <= 0.25 * toy.n_seeds")],
        otherwise="nuanced", examples={}, seed_cap=cap)


def test_a_verdict_every_seed_agrees_on_survives_every_resampling():
    assessment = registry.assess(results({"wins": [1.0] * 8}, 8), {"C99": claim()})["C99"]
    assert (assessment.verdict, assessment.stability, assessment.undecided) == ("verified", 1.0, False)


def test_a_verdict_on_its_threshold_is_undecided_and_shown_as_open():
    # 6 of 8 is exactly the 3/4 bar: a resampling falls below it about half the time.
    assessment = registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), {"C99": claim()})["C99"]
    assert assessment.rule_verdict == "verified"
    assert 0.3 < assessment.stability < 0.7
    assert assessment.undecided and assessment.verdict == "open"


def test_a_refutation_without_a_power_check_is_shown_as_open():
    # 0 of 8 wins: the rule refutes, but nothing shows the test could have seen a win (G1).
    assessment = registry.assess(results({"wins": [0.0] * 8}, 8), {"C99": claim()})["C99"]
    assert (assessment.rule_verdict, assessment.verdict) == ("refuted", "open")
    assert assessment.unpowered and assessment.power is None


def test_a_refutation_stands_only_where_its_power_check_detects_the_planted_effect():
    def with_power(detected: float) -> registry.Assessment:
        runs = results({"wins": [0.0] * 8}, 8)
        runs["toy"]["numbers"]["planted_detected"] = {"value": detected, "text": ""}
        powered = registry.replace(claim(), power="toy.planted_detected")
        return registry.assess(runs, {"C99": powered})["C99"]

    assert with_power(0.8).verdict == "refuted" and not with_power(0.8).unpowered
    weak = with_power(0.79)
    assert (weak.rule_verdict, weak.verdict, weak.power) == ("refuted", "open", 0.79)
    # A claim about the maths keeps its exact computation: no power check is asked of it.
    maths = registry.assess(results({"wins": [0.0] * 8}, 8),
                            {"C99": registry.replace(claim(), type="mathematical")})["C99"]
    assert maths.verdict == "refuted"


def test_the_stability_is_the_share_of_draws_that_give_the_rule_verdict():
    # With one seed the draws are all that seed: a win always, so stable.
    one = registry.assess(results({"wins": [1.0]}, 1), {"C99": claim()})["C99"]
    assert one.stability == 1.0
    # Two seeds, one win: a draw has 0, 1 or 2 wins with chances 1/4, 1/2, 1/4; verified
    # needs 2 (>= 1.5), refuted 0 (<= 0.5), so "nuanced" (1 win) holds in about half the draws.
    two = registry.assess(results({"wins": [1.0, 0.0]}, 2), {"C99": claim()})["C99"]
    assert two.rule_verdict == "nuanced" and abs(two.stability - 0.5) < 0.06


def test_resampling_is_reproducible_and_draws_with_replacement():
    first = registry.resampled(results({"wins": [1.0, 0.0, 0.0, 0.0]}, 4), ["toy"], draws=200)
    again = registry.resampled(results({"wins": [1.0, 0.0, 0.0, 0.0]}, 4), ["toy"], draws=200)
    assert first == again
    counts = {sample["toy.wins"] for sample in first}          # wins ~ Binomial(4, 1/4) per draw
    assert {0.0, 1.0, 2.0} <= counts <= {0.0, 1.0, 2.0, 3.0, 4.0}
    assert all(sample["toy.n_seeds"] == 4 for sample in first)


def test_an_undecided_claim_asks_for_twice_the_seeds_up_to_its_cap():
    claims = {"C99": claim(cap=16)}
    at_8 = registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), claims)
    assert registry.more_seeds(at_8, claims) == {"toy": 16}
    at_16 = registry.assess(results({"wins": [1.0] * 12 + [0.0] * 4}, 16), claims)
    assert registry.more_seeds(at_16, claims) == {}                    # the cap: stays undecided
    settled = registry.assess(results({"wins": [1.0] * 8}, 8), claims)
    assert registry.more_seeds(settled, claims) == {}


def test_a_planted_arm_is_not_counted_among_the_seeds_nor_trained_again():
    planted_arm = {"n_seeds": {"value": 32.0, "text": "32"},
                   "detected": {"value": 30.0, "text": "", "per_seed": [1.0] * 30 + [0.0] * 2, "of": "count"}}
    with_arm = {**results({"wins": [1.0] * 6 + [0.0] * 2}, 8), "arm": {"numbers": planted_arm}}
    tested = claim(cap=64)
    tested.experiments.append(registry.Experiment(kind="trained", snippet="arm", planted=True))
    assessment = registry.assess(with_arm, {"C99": tested})["C99"]
    assert assessment.seeds == {"toy": 8} and assessment.n_seeds == 8
    assert registry.more_seeds({"C99": assessment}, {"C99": tested}) == {"toy": 16}
    unmarked = claim(cap=64)
    unmarked.experiments.append(registry.Experiment(kind="trained", snippet="arm"))
    assert registry.assess(with_arm, {"C99": unmarked})["C99"].n_seeds == 32


def test_per_seed_values_must_match_the_seed_count():
    bad = results({"wins": [1.0] * 7}, 8)
    with pytest.raises(registry.RegistryError, match="7 per-seed values for 8 seeds"):
        registry.assess(bad, {"C99": claim()})


def run_python(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in kernels.PINNED}
    done = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, cwd=ROOT / "snippets",
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(not kernels.has_avx2(), reason="the pin applies to x86-64 machines with AVX2")
def test_importing_explainer_first_pins_the_kernels_and_an_explicit_setting_wins():
    check = "import explainer, torch; print(torch.backends.cpu.get_cpu_capability())"
    assert run_python(check) == "AVX2"
    assert run_python(check, ATEN_CPU_CAPABILITY="default") == "DEFAULT"
    assert run_python("import explainer, os; print(os.environ['MKL_CBWR'])") == "AVX2"
    # numpy's OpenBLAS and its own functions: the same answer as when the machine offers no
    # more than AVX2, whatever this one has (a matrix product and exp, bit for bit)
    digest = ("import explainer, hashlib, numpy as np\n"
              "a = np.random.default_rng(0).standard_normal((300, 300))\n"
              "print(hashlib.sha256((a @ a).tobytes() + np.exp(a).tobytes()).hexdigest())")
    assert run_python(digest) == run_python(digest.replace("explainer, ", ""), OPENBLAS_CORETYPE="Haswell",
                                            NPY_DISABLE_CPU_FEATURES=kernels.NUMPY_AVX512)


@pytest.mark.skipif(not kernels.has_avx2(), reason="the pin applies to x86-64 machines with AVX2")
def test_importing_numpy_first_warns_that_the_pin_comes_too_late():
    code = ("import warnings, numpy\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always'); import explainer\n"
            "print(' | '.join(str(w.message) for w in caught))")
    assert "numpy was imported before explainer" in run_python(code)


@pytest.mark.skipif(not kernels.has_avx2(), reason="the pin applies to x86-64 machines with AVX2")
def test_importing_torch_first_warns_that_the_pin_comes_too_late():
    # torch computes once with the default kernels (its choice is then fixed); the setting is
    # gone when explainer comes to pin.
    code = ("import os, warnings, torch; torch.ones(64).sum(); del os.environ['ATEN_CPU_CAPABILITY']\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always'); import explainer\n"
            "print(' | '.join(str(w.message) for w in caught))")
    assert "torch was imported before explainer and computes with DEFAULT kernels" in \
        run_python(code, ATEN_CPU_CAPABILITY="default")


def test_an_assessment_is_read_back_for_the_same_numbers_and_claims_only(tmp_path, monkeypatch):
    import dataclasses
    import json

    monkeypatch.setattr(registry, "ASSESSED", tmp_path)
    claims = {"C99": claim()}
    first = registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), claims)
    [stored] = tmp_path.iterdir()
    planted = json.loads(stored.read_text())
    planted["C99"]["verdict"] = "refuted"          # what a read-back would return
    stored.write_text(json.dumps(planted))
    assert registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), claims)["C99"].verdict == "refuted"
    # other numbers, another rule: assessed afresh
    fresh = registry._assess(results({"wins": [1.0] * 5 + [0.0] * 3}, 8), claims, registry.RESAMPLINGS)
    assert registry.assess(results({"wins": [1.0] * 5 + [0.0] * 3}, 8), claims) == fresh
    other_rule = {"C99": dataclasses.replace(claim(), otherwise="open")}
    assert registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), other_rule)["C99"].verdict \
        == first["C99"].verdict
    assert len(list(tmp_path.iterdir())) == 3
    # the claim's wording decides nothing: read back (the planted verdict), nothing new stored
    reworded = dataclasses.replace(claim(), title={"en": "New", "zh": "新"}, text={"en": "Says", "zh": "说"},
                                   rule_text={"en": "In words", "zh": "文字"})
    assert registry.assess(results({"wins": [1.0] * 6 + [0.0] * 2}, 8), {"C99": reworded})["C99"].verdict \
        == "refuted"
    assert len(list(tmp_path.iterdir())) == 3


def real_results(recorded: float, draws: list[float], n_items: int = 40) -> dict:
    """A fake real-model snippet 'real' that resampled its items itself."""
    return {"real": {"numbers": {
        "n_items": {"value": float(n_items), "text": str(n_items)},
        "hits": {"value": recorded, "text": "", "resampled": draws}}}}


def real_claim() -> registry.Claim:
    return registry.Claim(
        id="C98", title={"en": "", "zh": ""}, source=[], type="empirical", text={"en": "", "zh": ""},
        experiments=[registry.Experiment(kind="real", snippet="real")], rule_text={"en": "", "zh": ""},
        cases=[("verified", "real.hits >= 30")], otherwise="nuanced", examples={})


def test_a_real_model_verdict_that_survives_its_item_resamplings_is_shown():
    assessment = registry.assess(real_results(32, [31.0] * 95 + [29.0] * 5), {"C98": real_claim()})["C98"]
    assert (assessment.verdict, assessment.stability, assessment.items) == ("verified", 0.95, {"real": 40})


def test_a_real_model_verdict_on_a_knife_edge_of_its_items_is_open():
    # 60 of 100 item resamplings keep the verdict: below 90 %, undecided at n = 40 items.
    assessment = registry.assess(real_results(30, [30.0] * 60 + [29.0] * 40), {"C98": real_claim()})["C98"]
    assert assessment.rule_verdict == "verified" and assessment.stability == 0.6
    assert assessment.undecided and assessment.verdict == "open" and assessment.n_items == 40


def test_a_planted_number_keeps_its_spread_and_a_planted_count_is_refused():
    # Per-seed scores around 0.1 shifted to mean 0.5: the refutation (mean <= 0.2) fails in
    # every draw, so the planted effect is detected; a count of seeds planted as coins would
    # only restate the seed design, so the registry may not ask for it.
    runs = {"toy": {"numbers": {
        "n_seeds": {"value": 8.0, "text": "8"},
        "score": {"value": 0.1, "text": "", "per_seed": [0.05, 0.15] * 4, "of": "mean"},
        "wins": {"value": 0.0, "text": "", "per_seed": [0.0] * 8, "of": "count"},
        "gains": {"value": 1.0, "text": "", "per_seed": [0.3] + [-0.1] * 7, "of": "count_above", "line": 0.0}}}}
    base = registry.replace(claim(), cases=[("refuted", "toy.score <= 0.2")], otherwise="nuanced")
    assert registry.planted(runs, registry.replace(base, plant=[{"toy.score": 0.5}]), draws=200) == 1.0
    assert registry.planted(runs, registry.replace(base, plant=[{"toy.score": 0.1}]), draws=200) == 0.0
    with pytest.raises(registry.RegistryError, match="count of seeds"):
        registry.planted(runs, registry.replace(base, plant=[{"toy.wins": 0.75}]), draws=200)
    # Nor a count of seeds past a line: its measurement shifted so that 3/4 of the observed
    # seeds lie past the line gives a redrawn count of Binomial(n, 3/4), whatever it measures.
    with pytest.raises(registry.RegistryError, match="planted arm"):
        registry.planted(runs, registry.replace(base, plant=[{"toy.gains": 0.75}]), draws=200)


def test_several_planted_effects_are_planted_one_at_a_time_and_the_least_detected_counts():
    # Refuted needs both scores low; either one high would make the claim true. Each is
    # planted alone: 'score' at 0.5 is always detected, 'other' at 0.15 never (it stays
    # below 0.2), so the power is 0, the effect hardest to see, not the 1 of planting both.
    runs = {"toy": {"numbers": {
        "n_seeds": {"value": 8.0, "text": "8"},
        "score": {"value": 0.1, "text": "", "per_seed": [0.05, 0.15] * 4, "of": "mean"},
        "other": {"value": 0.1, "text": "", "per_seed": [0.08, 0.12] * 4, "of": "mean"}}}}
    base = registry.replace(claim(), cases=[("refuted", "toy.score <= 0.2 and toy.other <= 0.2")],
                            otherwise="nuanced")
    both = registry.replace(base, plant=[{"toy.score": 0.5, "toy.other": 0.15}])
    apart = registry.replace(base, plant=[{"toy.score": 0.5}, {"toy.other": 0.15}])
    assert registry.planted(runs, both, draws=200) == 1.0
    assert registry.planted(runs, apart, draws=200) == 0.0
    entry = {"power": {"plant": [{"toy.score": 0.5}, {"toy.other": 0.15}]},
             "experiments": [{"snippet": "toy", "kind": "trained"}]}
    assert registry._power("C99", entry) == {"plant": [{"toy.score": 0.5}, {"toy.other": 0.15}]}
    assert registry._power("C99", {**entry, "power": {"plant": {"toy.score": 0.5}}}) == {"plant": [{"toy.score": 0.5}]}


@pytest.mark.parametrize("n", [8, 10, 16])
def test_the_verified_bar_shift_puts_at_least_three_quarters_of_the_seeds_at_the_bar(n):
    # k = n − ⌈3n/4⌉ + 1 (3 for n = 8, 3 for 10, 5 for 16): the k-th smallest lands on the bar.
    values = np.random.default_rng(n).normal(0.0, 0.02, n)
    shifted = registry.verified_bar_shift(values, 0.01)
    k = n - math.ceil(0.75 * n) + 1
    assert np.sort(shifted)[k - 1] == pytest.approx(0.01)
    assert (shifted >= 0.01 - 1e-15).sum() >= math.ceil(0.75 * n)
    assert np.allclose(np.diff(np.sort(shifted)), np.diff(np.sort(values)))     # one constant
    # Ties: all seeds equal, all at the bar (at least, not exactly, ⌈3n/4⌉).
    assert (registry.verified_bar_shift(np.zeros(n), 0.01) == 0.01).all()


def test_a_plant_at_the_verified_bar_shifts_once_and_keeps_each_seeds_numbers_together():
    # Two low seeds far below six equal ones: shifted once, the six sit at the bar and the two
    # 0.1 below; a draw with enough low seeds pulls the interval's upper end under 0.01 and the
    # refutation returns. Shifting each draw would put every draw at the bar (never refuted).
    gaps = [0.0] * 6 + [-0.1] * 2
    runs = {"toy": {"numbers": {
        "n_seeds": {"value": 8.0, "text": "8"},
        "gap": {"value": 0.0, "text": "", "per_seed": gaps, "of": "ci95_high"},
        "twin": {"value": 0.0, "text": "", "per_seed": gaps, "of": "mean"},
        "learned": {"value": 8.0, "text": "", "per_seed": [1.0] * 8, "of": "count"}}}}
    base = registry.replace(claim(), cases=[("refuted", "toy.gap < 0.01")], otherwise="nuanced")
    power = registry.planted(runs, registry.replace(base, plant=[{"toy.gap": {"verified_bar": 0.01}}]), draws=2000)
    assert 0.75 < power < 0.99
    # The other per-seed numbers ride on the same picks: 'twin' (a copy of the gaps, unplanted)
    # is low exactly when the planted gap is; it never is when drawn on its own picks.
    together = registry.replace(base, cases=[("refuted", "toy.gap < 0.01 and toy.twin > -0.01")])
    assert registry.planted(runs, registry.replace(together, plant=[{"toy.gap": {"verified_bar": 0.01}}]),
                            draws=2000) == 1.0
    # A count of seeds stays at its recorded value in every draw.
    counted = registry.replace(base, cases=[("refuted", "toy.learned < 8")])
    assert registry.planted(runs, registry.replace(counted, plant=[{"toy.gap": {"verified_bar": 0.01}}]),
                            draws=200) == 1.0
    entry = {"power": {"plant": {"toy.gap": {"verified_bar": 0.01}}},
             "experiments": [{"snippet": "toy", "kind": "trained"}]}
    assert registry._power("C99", entry) == {"plant": [{"toy.gap": {"verified_bar": 0.01}}]}
    with pytest.raises(registry.RegistryError, match="verified_bar"):
        registry._power("C99", {**entry, "power": {"plant": {"toy.gap": {"bar": 0.01}}}})


def test_an_undecided_real_model_claim_asks_for_one_more_look_at_its_item_cap():
    claims = {"C98": registry.replace(real_claim(), item_cap={"real": 120})}
    knife_edge = registry.assess(real_results(30, [30.0] * 60 + [29.0] * 40), claims)
    assert registry.more_items(knife_edge, claims) == {"real": 120}
    at_cap = registry.assess(real_results(30, [30.0] * 60 + [29.0] * 40, n_items=120), claims)
    assert registry.more_items(at_cap, claims) == {}                    # undecided at n = 120
    settled = registry.assess(real_results(32, [31.0] * 95 + [29.0] * 5), claims)
    assert registry.more_items(settled, claims) == {}
    without_cap = {"C98": real_claim()}
    assert registry.more_items(registry.assess(real_results(30, [30.0] * 60 + [29.0] * 40),
                                               without_cap), without_cap) == {}


def test_only_a_trained_arm_can_be_marked_planted():
    assert registry._experiment("C99", {"snippet": "arm", "kind": "trained", "planted": True}).planted
    for entry in ({"snippet": "real", "kind": "real", "planted": True},
                  {"snippet": "arm", "kind": "trained", "planted": "yes"}):
        with pytest.raises(registry.RegistryError):
            registry._experiment("C99", entry)


def test_report_spread_records_the_four_keys_its_caller_named(tmp_path, monkeypatch):
    """The four keys the caller writes out, each with the per-seed values; a count's lowest
    and highest seed written as whole numbers, its mean and spread with the caller's format."""
    from explainer.seeds import report_spread

    monkeypatch.setenv("EXPLAINER_OUTPUT_DIR", str(tmp_path))
    report = Report("spread_check")
    stats = report_spread(report, [1.0, 2.0, 4.0, 5.0], "{:.1f}", kind="count",
                          mean="hits_mean", std="hits_spread", min="fewest_hits", max="most_hits")
    numbers = report.numbers
    assert list(numbers) == ["hits_mean", "hits_spread", "fewest_hits", "most_hits"]
    assert stats == pytest.approx({"mean": 3.0, "std": math.sqrt(2.5), "min": 1.0, "max": 5.0})
    assert [numbers[k]["text"] for k in numbers] == ["3.0", "1.6", "1", "5"]
    assert [numbers[k].get("kind", "") for k in numbers] == ["", "", "count", "count"]
    assert [numbers[k]["of"] for k in numbers] == ["mean", "std", "min", "max"]
    assert all(numbers[k]["per_seed"] == [1.0, 2.0, 4.0, 5.0] for k in numbers)


def test_report_spread_leaves_the_description_to_the_strings_file(tmp_path, monkeypatch):
    """The four numbers carry no description of their own: the snippet's strings file describes
    each ending in a table ("… (mean over seeds)", "…（各种子的平均）"), read by the build."""
    from explainer.seeds import report_spread

    monkeypatch.setenv("EXPLAINER_OUTPUT_DIR", str(tmp_path))
    report = Report("spread_bare")
    keys = dict(mean="share_mean", std="share_std", min="share_min", max="share_max")
    report_spread(report, [0.25, 0.5, 1.0], kind="share", **keys)
    assert list(report.numbers) == ["share_mean", "share_std", "share_min", "share_max"]
    assert all("about" not in n for n in report.numbers.values())
    with pytest.raises(TypeError):
        report_spread(report, [0.25, 0.5, 1.0], kind="share", en="share", zh="占比", **keys)
    with pytest.raises(TypeError):   # every key written out: none left to a default
        report_spread(report, [0.25, 0.5, 1.0], mean="share_mean")
