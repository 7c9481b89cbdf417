"""Translation drift from git history, on a throwaway repository."""

import os
import subprocess

from tools.contributing import translation_status


def commit(repo, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
                   cwd=repo, check=True)


def test_a_page_is_behind_when_its_twin_changed_text_after_it(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.setattr(translation_status, "ROOT", tmp_path)
    monkeypatch.setattr(translation_status, "DOCS", tmp_path / "docs")
    commit(tmp_path, {"docs/en/a.md": "# A\n\nOne head.\n", "docs/zh/a.md": "# A\n\n一个头。\n"}, "both")
    assert translation_status.translations_behind() == []

    commit(tmp_path, {"docs/en/a.md": "# A\n\nOne head. Two heads.\n"}, "English grows")
    [behind] = translation_status.translations_behind()
    assert (behind.page, behind.lang, len(behind.commits)) == ("a.md", "zh", 1)
    assert behind.commits[0].endswith("English grows")

    commit(tmp_path, {"docs/zh/a.md": "# A\n\n一个头。两个头。\n"}, "Chinese catches up\n\nTranslation: in step")
    assert translation_status.translations_behind() == []

    commit(tmp_path, {"docs/en/a.md": "# A\n\nOne head.\nTwo heads.\n"}, "re-wrap only")
    assert translation_status.translations_behind() == []



def test_history_through_merges_and_chinese_word_diffs(tmp_path, monkeypatch):
    """A commit that changes both twins keeps them in step even when a merge brings it in after
    a newer commit to one twin."""
    def git(*args, date="2026-01-01T00:00:00"):
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       cwd=tmp_path, check=True, capture_output=True, env=env)

    def write(files):
        for path, text in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text, encoding="utf-8")
        git("add", "-A")

    git("init", "-q", "-b", "main")
    monkeypatch.setattr(translation_status, "ROOT", tmp_path)
    monkeypatch.setattr(translation_status, "DOCS", tmp_path / "docs")
    write({"docs/en/a.md": "# A\n\nOne head.\n", "docs/zh/a.md": "# A\n\n一个注意力头。\n"})
    git("commit", "-qm", "both", date="2026-01-01T00:00:00")
    git("checkout", "-q", "-b", "side")
    write({"docs/en/a.md": "# A\n\nA single head.\n", "docs/zh/a.md": "# A\n\n「单个」注意力头。\n"})
    git("commit", "-qm", "both, on a branch", date="2026-01-02T00:00:00")
    git("checkout", "-q", "main")
    write({"docs/en/a.md": "# A\n\nOne head (later).\n"})
    git("commit", "-qm", "English, later\n\nTranslation: in step", date="2026-01-03T00:00:00")
    git("merge", "-q", "--no-ff", "-X", "ours", "-m", "merge", "side", date="2026-01-04T00:00:00")
    assert translation_status.translations_behind() == []

    write({"docs/zh/a.md": "# A\n\n「单个」注意力头，更长。\n"})
    git("commit", "-qm", "Chinese grows", date="2026-01-05T00:00:00")
    [behind] = translation_status.translations_behind()
    assert (behind.lang, behind.commits[0].split(maxsplit=1)[1]) == ("en", "Chinese grows")
