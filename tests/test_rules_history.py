"""The rules history (docs/rules_history.yml, tools/verdicts/rules_history.py): append-only, in step
with the registry and with the repository's commits, and what the ledger says about it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

import remembered

from tools.verdicts import claims as registry
from tools.verdicts import ledger, rules_history

ROOT = Path(__file__).resolve().parents[1]

CLAIM = """\
C01:
  title: {en: "A claim", zh: "一条论断"}
  source: [a-1]
  type: definitional
  en: Something holds.
  zh: 某事成立。
  experiments:
    - snippet: %(module)s
      kind: equivalence
  rule:
    en: Verified if the error is below %(bar)s.
    zh: 误差小于 %(bar)s 则证实。
    cases:
      - verified: "%(module)s.error < %(bar)s"
    otherwise: refuted
    examples:
      verified: {%(module)s.error: 0.0}
      refuted: {%(module)s.error: 1.0}
"""


def registry_text(bar: str = "1e-6", module: str = "four_steps") -> str:
    return CLAIM % {"bar": bar, "module": module}


def git(repo: Path, *args: str, date: str = "2026-11-29T10:00:00+00:00") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           "-c", "commit.gpgsign=false", *args], check=True, capture_output=True,
                          text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path):
    """A repository with a registry of one claim; its history written by the tool."""
    (tmp_path / "docs").mkdir()
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "docs" / "claims.yml").write_text(registry_text(), encoding="utf-8")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "rule", date="2026-11-29T10:00:00+00:00")
    return tmp_path


def update(repo: Path, today: str) -> list[str]:
    return rules_history.update(repo / "docs" / "claims.yml", repo / "docs" / "rules_history.yml",
                                repo / ".cache" / "snippets", today=today)


def check(repo: Path, with_git: bool = True) -> None:
    rules_history.check(repo / "docs" / "claims.yml", repo / "docs" / "rules_history.yml",
                        repo if with_git else None)


def git_inputs(root: Path = ROOT) -> str:
    """What ``rules_history.from_git`` reads: the commits reachable from HEAD (their ids name
    their contents and parents) and git's version."""
    return git(root, "rev-parse", "HEAD") + git(root, "--version")


def history_from_git() -> dict:
    """``rules_history.from_git`` of this checkout, remembered under HEAD, git's version and the
    code that reads it (tests/remembered.py): a warm `make test` does not walk the history again."""
    return remembered.remember("rules-history-from-git", git_inputs(), lambda: rules_history.from_git(ROOT),
                               __file__, rules_history.__file__, registry.__file__)


def test_the_history_from_git_is_read_again_after_a_commit(repo):
    before = git_inputs(repo)
    assert git_inputs(repo) == before
    (repo / "docs" / "claims.yml").write_text(registry_text(bar="1e-3"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a new rule")
    assert git_inputs(repo) != before


def test_the_committed_history_is_what_the_repositorys_commits_give():
    if not rules_history.git_history_available(ROOT):
        pytest.skip("no full git history (a shallow clone)")
    committed = rules_history.read()
    for claim_id, versions in history_from_git().items():
        recorded = committed.get(claim_id, [])
        seeded = {v["commit"]: v for v in recorded if v["commit"]}
        for version in versions:
            if version["commit"] in seeded:   # seeded from git: the same entry, field for field
                assert seeded[version["commit"]] == version, claim_id
            else:                             # appended by the tool before its commit: the same rule
                assert any((v["decision"], v["words"]) == (version["decision"], version["words"])
                           for v in recorded if not v["commit"]), (claim_id, version["commit"])


def test_every_claims_rule_is_the_last_version_of_its_history():
    rules_history.check(root=None)


def test_a_changed_rule_without_a_history_entry_fails_naming_the_claim_and_the_command(repo):
    update(repo, "2026-11-29T10:00:00+00:00")
    check(repo)
    (repo / "docs" / "claims.yml").write_text(registry_text(bar="1e-3"), encoding="utf-8")
    with pytest.raises(rules_history.HistoryError) as error:
        check(repo, with_git=False)
    assert "C01" in str(error.value) and rules_history.COMMAND in str(error.value)


def test_a_commit_that_changed_a_rule_without_an_entry_fails_until_the_tool_records_it(repo):
    update(repo, "2026-11-29T10:00:00+00:00")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "history", date="2026-11-29T10:01:00+00:00")
    # Changed and committed without running the tool ...
    (repo / "docs" / "claims.yml").write_text(registry_text(bar="1e-3"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "looser", date="2026-11-29T11:00:00+00:00")
    # ... then changed again, and the history file edited by hand to agree with the last version:
    # the last version agrees, the commit before does not
    (repo / "docs" / "claims.yml").write_text(registry_text(bar="1e-2"), encoding="utf-8")
    history = rules_history.read(repo / "docs" / "rules_history.yml")
    claims_yml = yaml.safe_load((repo / "docs" / "claims.yml").read_text(encoding="utf-8"))
    history["C01"].append(rules_history._version(rules_history.rule_of(claims_yml["C01"]),
                                                 "2026-11-29T12:00:00+00:00", None, False, None, None))
    rules_history.write(history, repo / "docs" / "rules_history.yml")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "looser still", date="2026-11-29T12:00:00+00:00")
    check(repo, with_git=False)
    with pytest.raises(rules_history.HistoryError) as error:
        check(repo)
    message = str(error.value)
    assert "C01" in message and "has no version of it" in message and rules_history.COMMAND in message
    # The tool records the committed version with its commit's date, and the current one stays last.
    assert update(repo, "2026-11-29T13:00:00+00:00") == ["C01"]
    versions = rules_history.read(repo / "docs" / "rules_history.yml")["C01"]
    assert "2026-11-29T11:00:00+00:00" in [v["date"] for v in versions]
    check(repo)


def test_the_tool_appends_a_changed_rule_and_never_rewrites_an_earlier_entry(repo):
    history_file = repo / "docs" / "rules_history.yml"
    assert update(repo, "2026-11-29T10:00:00+00:00") == ["C01"]
    first = history_file.read_text(encoding="utf-8")
    assert update(repo, "2026-11-30T10:00:00+00:00") == []          # nothing changed, nothing added
    assert history_file.read_text(encoding="utf-8") == first
    (repo / "docs" / "claims.yml").write_text(registry_text(bar="1e-3"), encoding="utf-8")
    assert update(repo, "2026-12-02T09:00:00+00:00") == ["C01"]
    after = rules_history.read(history_file)
    assert after["C01"][0] == yaml.safe_load(first)["C01"][0]
    assert [v["date"] for v in after["C01"]] == ["2026-11-29T10:00:00+00:00", "2026-12-02T09:00:00+00:00"]
    assert after["C01"][1]["commit"] is None
    assert after["C01"][1]["numbers_known"] is False   # nothing recorded in this repository's cache
    edited = {"C01": [{**after["C01"][0], "date": "2026-11-28T00:00:00+00:00"}, after["C01"][1]]}
    with pytest.raises(rules_history.HistoryError, match="append-only"):
        rules_history.append_only(after, edited)


def test_moving_a_snippet_module_is_not_a_new_version_but_rewording_the_rule_is(repo):
    update(repo, "2026-11-29T10:00:00+00:00")
    (repo / "docs" / "claims.yml").write_text(registry_text(module="chapter.four_steps"), encoding="utf-8")
    assert update(repo, "2026-11-30T10:00:00+00:00") == []
    check(repo, with_git=False)
    reworded = registry_text().replace("Verified if the error", "Verified when the error")
    (repo / "docs" / "claims.yml").write_text(reworded, encoding="utf-8")
    assert update(repo, "2026-11-30T11:00:00+00:00") == ["C01"]
    versions = rules_history.read(repo / "docs" / "rules_history.yml")["C01"]
    assert versions[0]["decision"] == versions[1]["decision"] != rules_history.decision_hash({"cases": []})
    assert len(rules_history.decisions(versions)) == 1   # a rewording is not a revised rule


def test_the_seeded_history_finds_the_rules_revised_after_their_results_were_known():
    counts = rules_history.counts(rules_history.read())
    # The audit: C25 was rewritten (verified -> refuted) when its baseline changed, after its run.
    assert "C25" in counts.revised_after
    deciding = rules_history.decisions(rules_history.read()["C25"])
    assert not deciding[0]["numbers_known"] and deciding[-1]["numbers_known"]
    claims = registry.load()
    assert sorted(counts.fixed_before + counts.written_after + counts.revised_after + counts.no_rule) \
        == sorted(claims)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_ledger_counts_the_rules_from_the_history_and_each_card_says_when_its_rule_was_fixed(lang):
    claims = registry.load()
    history = rules_history.read()
    text = ledger.page(lang, claims, dict.fromkeys(claims), {}, {}, "sources.md", "references.md",
                       history=history)
    counts = rules_history.counts(history)
    intro = text.split("\n\n")[1]
    for group in (counts.fixed_before, counts.written_after, counts.revised_after):
        assert re.search(rf"(?<![\d.]){len(group)}(?![\d.]) (rules|条)|(?<![\d.]){len(group)}(?![\d.]) (were|条)", intro)
    assert ("were written before the experiments ran" not in text
            and "规则在实验运行之前就已写定" not in text)
    fixed = ledger.UI[lang]["fixed"]
    assert text.count(f"**{fixed}") == sum(1 for c in claims if rules_history.decisions(history[c]))
    earlier = ledger.UI[lang]["earlier"]
    assert text.count(f"**{earlier}") == sum(1 for c in claims if len(rules_history.decisions(history[c])) > 1)
