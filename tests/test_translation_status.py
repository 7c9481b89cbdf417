"""Translation drift from git history, on a throwaway repository."""

import subprocess

import translation_status


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
