"""Scaffold a new page pair with its snippet, its test and its nav entries.

    python -m tools.contributing.new_page NAME [--chapter DIR] [--claim C20]
                                          [--title-en "..."] [--title-zh "..."]
    make page NAME=softmax_temperature CHAPTER=three-roles CLAIM=C05

Creates docs/{en,zh}/[DIR/]NAME-with-dashes.md, snippets/[DIR_]/NAME.py with its words beside
it in snippets/[DIR_]/NAME.strings.toml, tests/snippets/[DIR_]/test_NAME.py (DIR with underscores: snippets/ mirrors docs/en/),
the Chinese narrative snippets/zh/[DIR_]/NAME.md, and a nav line in mkdocs.yml and mkdocs.zh.yml
(before the claims ledger). The result builds and passes its tests as is;
then replace the example experiment with yours.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(__file__).resolve().parent / "page_template"
NAV_ANCHORS = {"mkdocs.yml": "  - Claims ledger: claims.md", "mkdocs.zh.yml": "  - 论断账本: claims.md"}
# A chapter's opening page lists its pages in nav order under this heading (tests/test_learning_path.py).
MAP_HEADINGS = {"en": "## The pages", "zh": "## 本章各页"}
MAP_LINE = {"en": "replace with one line on what this page shows.", "zh": "换成一句话，说明这一页讲什么。"}


def add_to_nav(text: str, anchor: str, chapter: str, title: str, page: str) -> str:
    """The page's nav line: last in its chapter's section, or before ``anchor`` without one."""
    lines = text.splitlines(keepends=True)
    in_chapter = [i for i, line in enumerate(lines) if chapter and f": {chapter}/" in line]
    if in_chapter:
        last = lines[in_chapter[-1]]
        indent = last[:len(last) - len(last.lstrip())]
        lines.insert(in_chapter[-1] + 1, f"{indent}- {title}: {page}\n")
        return "".join(lines)
    return text.replace(anchor, f"  - {title}: {page}\n{anchor}")


def add_to_chapter_map(lang: str, chapter: str, title: str, page: str) -> None:
    """A numbered line for the page at the end of its chapter opening's map, if there is one."""
    opening = ROOT / "docs" / lang / chapter / "index.md"
    if not chapter or not opening.is_file():
        return
    text = opening.read_text(encoding="utf-8")
    start = text.find(MAP_HEADINGS[lang])
    if start < 0:
        return
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end
    items = re.findall(r"^(\d+)\. ", text[start:end], re.M)
    sep = "：" if lang == "zh" else ": "
    line = f"{len(items) + 1}. [{title}]({page.rsplit('/', 1)[-1]}){sep}{MAP_LINE[lang]}\n"
    body = text[start:end].rstrip("\n") + "\n" + line + ("\n" if end < len(text) else "")
    opening.write_text(text[:start] + body + text[end:], encoding="utf-8")
    print(f"added to the map of {opening.relative_to(ROOT)}: {title}")


def fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"__(\w+)__", lambda m: values[m.group(1)], template)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="snippet name: lowercase letters, digits, underscores")
    parser.add_argument("--chapter", default="", help="folder under docs/<lang>/, e.g. many-heads")
    parser.add_argument("--claim", default="C20", help="the claim the page decides (docs/claims.yml)")
    parser.add_argument("--title-en", default=None)
    parser.add_argument("--title-zh", default=None)
    args = parser.parse_args()

    if not re.fullmatch(r"[a-z][a-z0-9_]*", args.name):
        parser.error("NAME must be lowercase letters, digits and underscores, e.g. softmax_temperature")
    slug = args.name.replace("_", "-")
    page = f"{args.chapter.strip('/')}/{slug}.md" if args.chapter else f"{slug}.md"
    title_en = args.title_en or args.name.replace("_", " ").capitalize()
    title_zh = args.title_zh or f"新页面：{title_en}"
    folder = args.chapter.strip("/").replace("-", "_")  # many-heads -> snippets/many_heads/
    place = f"{folder}/{args.name}" if folder else args.name
    dotted = place.replace("/", ".")  # the snippet's name in placeholders and rules
    values = {"NAME": dotted, "FILE": args.name, "TITLE_EN": title_en, "TITLE_ZH": title_zh, "CLAIM": args.claim}

    targets = {
        ROOT / "snippets" / f"{place}.py": "snippet.py",
        ROOT / "snippets" / f"{place}.strings.toml": "snippet.strings.toml",   # its numbers' and figures' words
        ROOT / "tests" / "snippets" / folder / f"test_{args.name}.py": "test_snippet.py",
        ROOT / "docs" / "en" / page: "page.en.md",
        ROOT / "docs" / "zh" / page: "page.zh.md",
    }
    existing = [str(path.relative_to(ROOT)) for path in targets if path.exists()]
    if existing:
        print(f"error: already exists: {', '.join(existing)}", file=sys.stderr)
        return 1
    for target, template in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill((TEMPLATES / template).read_text(encoding="utf-8"), values),
                          encoding="utf-8")
        print(f"created {target.relative_to(ROOT)}")
    # The snippet's narrative in Chinese, for its Chinese notebook (tools/running/notebooks.py).
    from tools.running import notebooks

    snippet = ROOT / "snippets" / f"{place}.py"
    cells = notebooks.read_cells(snippet.read_text(encoding="utf-8"))
    hashes = {f"HASH_{i}": notebooks.english_hash(c.source) for i, c in enumerate(cells) if c.kind == "markdown"}
    narrative = notebooks.NARRATIVE["zh"] / f"{place}.md"
    narrative.parent.mkdir(parents=True, exist_ok=True)
    narrative.write_text(fill((TEMPLATES / "narrative.zh.md").read_text(encoding="utf-8"),
                              {**values, **hashes}), encoding="utf-8")
    print(f"created {narrative.relative_to(ROOT)}")
    for config, anchor in NAV_ANCHORS.items():
        path = ROOT / config
        text = path.read_text(encoding="utf-8")
        if anchor not in text:
            print(f"error: {config} has no line '{anchor}'; add the nav entry by hand", file=sys.stderr)
            return 1
        title = title_en if config == "mkdocs.yml" else title_zh
        path.write_text(add_to_nav(text, anchor, args.chapter.strip("/"), title, page), encoding="utf-8")
        print(f"added to the nav of {config}: {title}")
        add_to_chapter_map("en" if config == "mkdocs.yml" else "zh", args.chapter.strip("/"), title, page)
    print(f"next: edit snippets/{place}.py, then `make test`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
