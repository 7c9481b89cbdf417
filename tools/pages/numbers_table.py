""""The numbers on this page": a collapsed table, at the end of a page, of every
recorded number the page cites (name, value, what it is), in the page's language,
with the raw output of each snippet as a download instead of a build dump."""

from __future__ import annotations

import tempfile
from pathlib import Path

UI = {
    "en": {"title": "The numbers on this page", "name": "Number", "value": "Value",
           "about": "What it is", "raw": "Everything the scripts printed when this site was built:",
           "output": "{name} output (.txt)", "missing": "—"},
    "zh": {"title": "本页用到的数字", "name": "名称", "value": "数值", "about": "含义",
           "raw": "构建本站时脚本打印的全部输出：", "output": "{name} 的输出（.txt）",
           "missing": "—"},
}


def shown(number: dict, lang: str) -> str:
    """A recorded number as ``lang`` writes it (snippets/explainer/report.py formats each
    number once per language; results without that keep one text for both)."""
    return number.get("texts", {}).get(lang) or number["text"]


def download_path(name: str) -> str:
    return f"downloads/{name.replace('.', '/')}.output.txt"


def public_output(stdout: str, *private_dirs: Path) -> str:
    """The printed output without any path of the build machine."""
    places = {str(p) for p in private_dirs} | {tempfile.gettempdir()}
    for place in sorted(places, key=len, reverse=True):
        stdout = stdout.replace(place + "/", "").replace(place, ".")
    return stdout


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(numbers: list[tuple[str, str]], results: dict[str, dict], lang: str, link) -> str:
    """The collapsed block (Markdown, pymdownx.details) for the end of a page that cites
    ``numbers`` ((snippet, key), in order of first use; page_macros.values); ``link(path)``
    makes a site path relative to the page. Empty when the page cites no number."""
    if not numbers or not results:
        return ""
    ui = UI[lang]
    rows = [f"| {ui['name']} | {ui['value']} | {ui['about']} |", "|---|---:|---|"]
    for name, key in numbers:
        number = results.get(name, {}).get("numbers", {}).get(key)
        if number is None:
            continue  # the value macro itself reports a missing number
        about = number.get("about", {}).get(lang) or ui["missing"]
        rows.append(f"| `{name}.{key}` | {_cell(shown(number, lang))} | {_cell(about)} |")
    snippets = list(dict.fromkeys(name for name, _ in numbers if name in results))
    downloads = " · ".join(f"[{ui['output'].format(name=name)}]({link(download_path(name))})"
                           for name in snippets)
    body = "\n".join(rows) + f"\n\n{ui['raw']} {downloads}\n"
    indented = "\n".join(f"    {line}" if line else "" for line in body.splitlines())
    return f'\n\n??? abstract "{ui["title"]}"\n\n{indented}\n'
