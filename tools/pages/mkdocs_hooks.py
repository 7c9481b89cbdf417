"""MkDocs hooks: put the snippets' results into the pages of one language build.

Snippets run through ``snippet_runner`` (cached, so the second language build executes
nothing; ``EXPLAINER_NO_EXEC=1`` builds without running them). A page cites their results with
macros (``{{ value("n_seeds") }}``, ``{{ figure("heatmap") }}``, ``{{ code("scores") }}``, ...;
tools/pages/page_macros.py reads them), which mkdocs-macros-plugin renders with the functions
of tools/pages/macros.py from the state set here. The hooks also add the downloads, figures,
notebooks, the claims ledger and the glossary, and typeset the math.
"""

from __future__ import annotations

import datetime as dt
import html
import logging
import os
import posixpath
import re
import sys
from pathlib import Path
from urllib.parse import urljoin

import jinja2
from pymdownx import slugs
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

# mkdocs loads this file by its path: the checkout's root on the path makes the tools
# package importable (python -m mkdocs has it already; the mkdocs command does not).
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.verdicts import claims as registry  # noqa: E402
from tools.pages import figures  # noqa: E402
from tools.pages import glossary  # noqa: E402
from tools.pages import katex_math  # noqa: E402
from tools.verdicts import ledger  # noqa: E402
from tools.verdicts import rules_history  # noqa: E402
from tools.pages import numbers_table  # noqa: E402
from tools.pages import page_meta  # noqa: E402
from tools.pages import macros, page_macros  # noqa: E402
from tools.pages import print_page  # noqa: E402
import mkdocs_print_site_plugin.urls  # noqa: E402

mkdocs_print_site_plugin.urls.update_anchor_ids = print_page.update_anchor_ids  # see there
from tools.running import notebooks  # noqa: E402
from tools.pages import repository  # noqa: E402
from tools.running import snippet_runner  # noqa: E402
from tools.contributing import translation_status  # noqa: E402

log = logging.getLogger("mkdocs.hooks.snippets")
ROOT = snippet_runner.ROOT
DOCS = ROOT / "docs"
KATEX = ROOT / "node_modules" / "katex" / "dist"

UI = {
    "en": {
        "download": "Download", "notebook": "view as notebook", "colab": "Open in Colab", "search": "Search",
        "script": "The whole script: snippets/{name}.py ({lines} lines)", "not_run": "(not run)",
        "more_seeds": ("This page's numbers come from {n} random seeds: the build doubled the "
                       "script's own count while a verdict was undecided. To reproduce them: {command}"),
        "more_items": ("This script's numbers come from {n} items: resampling the script's own "
                       "items left a verdict undecided, so the build took one more look with more "
                       "items from the same templates. To reproduce them: {command}"),
        "glossary_title": "Glossary",
        "glossary_intro": "The terms this site uses, in both languages. On every page, the first "
                          "use of a term shows its definition when you point at it.",
        "term": "Term", "chinese": "中文", "meaning": "Meaning",
        "behind": "This page may be behind the Chinese version",
        "behind_text": "The Chinese page changed after this one was last updated:",
        "permalink": "Link to this section",
    },
    "zh": {
        "download": "下载", "notebook": "以笔记本查看", "colab": "在 Colab 中打开", "search": "搜索",
        "script": "完整脚本：snippets/{name}.py（{lines} 行）", "not_run": "（未运行）",
        "more_seeds": "本页的数字来自 {n} 个随机种子：某条结论在重抽后不稳定时，构建过程把脚本默认的种子数加倍重跑了。要复现这些数字：{command}",
        "more_items": "这个脚本的数字来自 {n} 个条目：对脚本默认的条目重抽样后，某条结论仍然不稳定，构建过程于是从同样的模板里多取条目，再看了一次。要复现这些数字：{command}",
        "glossary_title": "术语表",
        "glossary_intro": "本站用到的术语，中英对照。每一页上某个术语第一次出现时，把鼠标移上去（或轻点）就能看到它的解释。",
        "term": "术语", "chinese": "英文", "meaning": "含义",
        "behind": "本页可能落后于英文版",
        "behind_text": "英文版在本页上次更新之后又有改动：",
        "permalink": "本节链接",
    },
}

_state = macros.STATE  # the state the page macros read


def on_config(config):
    lang = config.theme["language"]
    if lang not in UI:
        raise PluginError(f"theme.language is {lang!r}; this site builds 'en' and 'zh'")
    results: dict[str, dict] = {}
    if os.environ.get("EXPLAINER_NO_EXEC") != "1":
        try:
            outcomes = snippet_runner.run_all(log=log.info)
        except snippet_runner.SnippetError as error:
            raise PluginError(str(error)) from None
        results = {name: {**snippet_runner.load_results(o), "_dir": o.output_dir}
                   for name, o in outcomes.items()}
    behind = {item.page: item.commits for item in translation_status.translations_behind()
              if item.lang == lang}
    toc = config.mdx_configs.setdefault("toc", {})
    toc["permalink_title"] = UI[lang]["permalink"]
    if lang == "zh":  # anchors keep their Chinese words (#为什么要除以-dk), not "#_6"
        toc["slugify"] = slugs.slugify(case="lower")
    if not config.repo_url:
        raise PluginError("mkdocs.yml must set repo_url (downloads and Colab links use it)")
    config.repo_url = repository.repo_url(config.repo_url)  # this repository (a fork's own), if known
    _state.update(lang=lang, ui=UI[lang], results=results, behind=behind, repo_url=config.repo_url,
                  snippets={snippet_runner.name_of(p): p for p in snippet_runner.discover()})
    _load_claims()
    # The build only (not the preview's refresh): each claim's rule is the last version of its
    # history. That every commit's rule change has its version is checked against git by the
    # tests (tests/test_rules_history.py): reading every commit's registry takes a build 14 s.
    try:
        rules_history.check(root=None)
    except rules_history.HistoryError as error:
        raise PluginError(f"docs/rules_history.yml: {error}") from None
    _state["last_changed"] = page_meta.last_changed()
    return config


def _load_claims() -> None:
    """The registry (docs/claims.yml) and each claim's verdict from the snippets' results."""
    try:
        _state["claims"] = registry.load()
    except registry.RegistryError as error:
        raise PluginError(f"docs/claims.yml: {error}") from None
    _state["history"] = rules_history.read()
    lang, claims, results = _state["lang"], _state["claims"], _state["results"]
    try:
        # One verdict per claim, by the registry's rules, with its stability under resampling
        # the seeds (tools/verdicts/claims.py); EXPLAINER_NO_EXEC=1: nothing measured, nothing decided.
        _state["assessments"] = assessments = (registry.assess(results, claims) if results
                                               else dict.fromkeys(claims))
        _state["reasons"] = ledger.reasons(lang, claims, results, assessments)
        _state["becauses"] = ledger.becauses(lang, claims, results, assessments)
    except (registry.MissingMeasurement, registry.RegistryError) as error:
        raise PluginError(str(error)) from None
    _state["verdicts"] = {claim_id: a.verdict if a else None for claim_id, a in assessments.items()}


def _generated_pages(config) -> dict[str, str]:
    """The pages made from docs/claims.yml and docs/glossary.yml: {src_uri: Markdown}."""
    return {"claims.md": _ledger(config), "glossary.md": glossary.page(_state["lang"], _state["ui"])}


def refresh_claims_and_glossary(files: Files, config) -> None:
    """For the live preview (tools/pages/preview.py), after docs/claims.yml or docs/glossary.yml
    changed: the claims' state and the two pages made from them, without a whole build. The
    pages that show claims or glossary terms are rendered again by the preview."""
    _load_claims()
    for src_uri, content in _generated_pages(config).items():
        files.get_file_from_path(src_uri).content_string = content


def _add(files: Files, config, src_uri: str, abs_src_path: Path) -> None:
    files.append(File.generated(config, src_uri, abs_src_path=str(abs_src_path)))


def on_env(env, config, files):
    """The theme's templates compiled once, not at every build (Jinja checks each cached
    template against its source)."""
    (ROOT / ".cache" / "jinja").mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(ROOT / ".cache" / "jinja"))
    return env


@event_priority(50)  # before mkdocs-jupyter, so it renders the generated notebooks
def on_files(files: Files, config):
    lang = _state["lang"]
    for asset in sorted((DOCS / "assets").iterdir()):
        _add(files, config, f"assets/{asset.name}", asset)
    if not KATEX.is_dir():
        raise PluginError("KaTeX is missing: run `npm ci` (or `make setup`) first")
    _add(files, config, "assets/katex/katex.min.css", KATEX / "katex.min.css")
    for font in sorted((KATEX / "fonts").glob("*.woff2")):
        _add(files, config, f"assets/katex/fonts/{font.name}", font)

    # Keep the committed notebooks (the ones "Open in Colab" opens) in step.
    # Each language's build writes its own: the two builds may run side by side.
    notebooks.write_committed(list(_state["snippets"].values()), log=log.info, langs=(lang,))
    pages = ROOT / ".cache" / "notebook-pages" / lang
    for name, path in _state["snippets"].items():
        place = snippet_runner.path_of(name)  # many_heads/pruning: the snippet's place
        _add(files, config, f"downloads/{place}.py", path)
        download, page = _executed_notebooks(name, path, config)
        # In memory, so mkdocs-jupyter (which matches notebooks/*.ipynb) leaves it alone.
        files.append(File.generated(config, f"downloads/{place}.ipynb", content=download))
        # mkdocs-jupyter renders this one as a page; it needs a file in a real folder.
        written = pages / "notebooks" / f"{place}.ipynb"
        written.parent.mkdir(parents=True, exist_ok=True)
        if not written.is_file() or written.read_text(encoding="utf-8") != page:
            written.write_text(page, encoding="utf-8")
        files.append(File(f"notebooks/{place}.ipynb", str(pages), config.site_dir,
                          config.use_directory_urls))
        results = _state["results"].get(name, {})
        for key, by_lang in results.get("figures", {}).items():
            for field, dark, narrow in (("file", False, False), ("dark_file", True, False),
                                        ("narrow_file", False, True), ("narrow_dark_file", True, True)):
                _add(files, config, figures.site_path(name, key, dark=dark, narrow=narrow),
                     results["_dir"] / by_lang[lang][field])
        if results:
            stdout = (results["_dir"] / "stdout.txt").read_text(encoding="utf-8")
            files.append(File.generated(config, numbers_table.download_path(name),
                                        content=numbers_table.public_output(stdout, results["_dir"], ROOT)))
        for key, filename in results.get("data", {}).items():
            _add(files, config, f"data/{place}/{key}.json", results["_dir"] / filename)

    _state["deciding_page"] = {}   # snippet -> the page that lists it whole
    _state["snippet_page"] = {}    # snippet -> the first page that shows its code
    _state["nav_titles"] = _nav_titles(config["nav"])
    for file in files.documentation_pages():
        if file.abs_src_path and file.src_uri.endswith(".md"):
            for call in page_macros.calls(Path(file.abs_src_path).read_text(encoding="utf-8")):
                if call.kind == "code":
                    _state["snippet_page"].setdefault(call.snippet, file.src_uri)
                    if not call.key:
                        _state["deciding_page"].setdefault(call.snippet, file.src_uri)
    for src_uri, content in _generated_pages(config).items():
        files.append(File.generated(config, src_uri, content=content))
    return files


def _executed_notebooks(name: str, path: Path, config) -> tuple[str, str]:
    """This language's notebook with the build's own outputs: (download, page). The download
    embeds its figures and links its article absolutely; the page shows the site's figures."""
    lang, results = _state["lang"], _state["results"].get(name)
    run_dir = results["_dir"] if results and (results["_dir"] / "cells.json").is_file() else None
    article = notebooks.article_page(name)
    article_path = notebooks.page_url(article) if article else ""
    site = config.site_url or notebooks.site_url(config.repo_url, lang)
    download = notebooks.notebook(path, lang, config.repo_url, site + article_path, run_dir)
    place = snippet_runner.path_of(name)
    # From the notebook page's URL (notebooks/<place>/; notebooks/ for index) to the site's root.
    up = "../" * notebooks.page_url(f"notebooks/{place}.md").count("/")
    page = notebooks.notebook(path, lang, config.repo_url, f"{up}{article_path}", run_dir,
                              notebooks.linked_figure(f"{up}figures/{place}/{{key}}.svg"))
    return download, page


def _nav_titles(nav, titles=None) -> dict[str, str]:
    titles = {} if titles is None else titles
    for entry in nav or []:
        for title, target in entry.items():
            if isinstance(target, list):
                _nav_titles(target, titles)
            else:
                titles[target] = title
    return titles


def _ledger(config) -> str:
    titles = _state["nav_titles"]
    where = {name: (page, titles.get(page, name)) for name, page in _state["deciding_page"].items()}
    docs = Path(config.docs_dir)
    return ledger.page(_state["lang"], _state["claims"], _state["verdicts"], _state["results"], where,
                       "sources.md" if (docs / "sources.md").is_file() else None,
                       "references.md" if (docs / "references.md").is_file() else None,
                       _state["assessments"], _state["reasons"], "../assets/ledger.js",
                       _state["history"], _state["becauses"])


def _behind_notice(commits: list[str]) -> str:
    ui = _state["ui"]
    listed = "\n".join(f"    - `{commit}`" for commit in commits[:5])
    return f'!!! warning "{ui["behind"]}"\n    {ui["behind_text"]}\n\n{listed}\n\n'


def on_page_markdown(markdown: str, page, config, files):
    source = page_meta.repository_file(page.file.src_uri, _state["lang"])
    day = _state["last_changed"].get(source, dt.date.today())  # today: not committed yet
    page.meta["revision_date"] = page_meta.formatted(day, _state["lang"])
    if page.file.src_uri in _state["behind"]:
        title, _, body = markdown.partition("\n")
        markdown = f"{title}\n\n{_behind_notice(_state['behind'][page.file.src_uri])}{body}"
    return markdown


NOTEBOOK_STYLE = re.compile(r'<style type="text/css">.*?</style>', re.S)


SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


HREFLANG_LINK = re.compile(r'<link rel="alternate" href="[^"]*" hreflang="([\w-]+)">')


def _hreflang_links(output: str, page, config) -> str:
    """Material points <link rel=alternate hreflang> at each language's home page, with
    relative URLs (which search engines and Lighthouse reject). Point them at this page's
    twin, absolute when the site URL is known (the deploy sets it); otherwise drop them."""
    if not config.site_url:
        return HREFLANG_LINK.sub("", output)
    roots = {alt["lang"]: urljoin(config.site_url, alt["link"]) for alt in config.extra["alternate"]}
    path = "" if page.url == "404.html" else page.url
    return HREFLANG_LINK.sub(
        lambda m: f'<link rel="alternate" href="{roots[m.group(1)]}{path}" hreflang="{m.group(1)}">',
        output)


def on_page_context(context, page, config, nav):
    """Edit links point at the file a page is made from (generated pages included)."""
    page.edit_url = page_meta.edit_url(config.repo_url, page.file.src_uri, _state["lang"])
    return context


def on_post_page(output: str, page, config):
    # Material's search dialog has no accessible name (axe: aria-dialog-name).
    label = html.escape(_state["ui"]["search"], quote=True)
    output = output.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + f' aria-label="{label}">')
    output = _hreflang_links(output, page, config)
    output = katex_math.search_only_parts(output)  # the search index has read them
    if page.file.src_uri.startswith("notebooks/"):
        output = _share_notebook_css(output, page, config)
    return output


def _share_notebook_css(output: str, page, config) -> str:
    """Move mkdocs-jupyter's inline CSS (about 600 KB per page) into one shared
    stylesheet, so each notebook page stays light."""
    styles = NOTEBOOK_STYLE.findall(output)
    if not styles:
        return output
    stylesheet = Path(config.site_dir) / "assets" / "notebook.css"
    css = "\n".join(style[len('<style type="text/css">'):-len("</style>")] for style in styles)
    stylesheet.parent.mkdir(parents=True, exist_ok=True)
    if not stylesheet.is_file() or stylesheet.read_text(encoding="utf-8") != css:
        stylesheet.write_text(css, encoding="utf-8")
    href = posixpath.relpath("assets/notebook.css", page.url.rstrip("/") or ".")
    link = f'<link rel="stylesheet" href="{href}">'
    output = output.replace(styles[0], link, 1)
    for style in styles[1:]:
        output = output.replace(style, "", 1)
    # Scrollable code must be reachable by keyboard (axe: scrollable-region-focusable).
    output = re.sub(r'(<div class="highlight-ipynb[^"]*">)<pre>', r'\1<pre tabindex="0">', output)
    return _heading_ids_as_in_the_toc(output)


NOTEBOOK_HEADING = re.compile(r'(<h[1-6] id=")[^"]*(">.*?<a class="anchor-link" href="#)[^"]*(")', re.S)
TOC = re.compile(r'data-md-component="toc".*?</nav>', re.S)


def _heading_ids_as_in_the_toc(output: str) -> str:
    """nbconvert names headings its own way (an all-Chinese heading gets an empty id), while
    the page's skip link and table of contents use the Markdown toc's names (#_1, #d_k_1, …).
    Give the headings, in order, the names those links use: the skip link's for the title."""
    skip = re.search(r'<a href="#([^"]*)" class="md-skip">', output)
    toc = TOC.search(output)
    anchors = ([skip.group(1)] if skip else []) + \
        (re.findall(r'<a href="#([^"]*)" class="md-nav__link">', toc.group(0)) if toc else [])
    if len(anchors) != len(NOTEBOOK_HEADING.findall(output)):
        return output
    names = iter(anchors)

    def name(match: re.Match) -> str:
        anchor = next(names)
        return f"{match.group(1)}{anchor}{match.group(2)}{anchor}{match.group(3)}"
    return NOTEBOOK_HEADING.sub(name, output)


# Pygments wraps every name, operator and bit of punctuation in a span drawn in the
# plain text colour anyway. Long listings then weigh thousands of elements, and the
# theme's script re-lays them out on load (Lighthouse: seconds of main-thread work).
PLAIN_TOKEN = re.compile(r'<span class="(?:n|o|p|w)">([^<]*)</span>')


@event_priority(10)  # before print-site keeps each page's HTML for the print page and the PDFs
def on_page_content(content: str, page, config, files):
    """Lighter code listings, glossary tooltips, and math typeset now (no math script)."""
    content = PLAIN_TOKEN.sub(r"\1", content)
    if page.file.src_uri.startswith("notebooks/"):
        # A notebook repeats its article's code and adds its printed output: kept out of the
        # search index, which it would triple (the article is what a search should find).
        page.meta["search"] = {"exclude": True}
    if page.file.src_uri.endswith(".md") and page.file.src_uri != "glossary.md":
        content = glossary.add_tooltips(content, _state["lang"])
    try:
        content = katex_math.typeset(content)
    except katex_math.MathError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
    if page.file.src_uri == "sources.md":
        _state["source_essays"] = print_page.source_essays(content)
    return content


def on_post_build(config):
    """The print page (written by mkdocs-print-site just before): cover, title, footer."""
    path = Path(config.site_dir) / "print_page" / "index.html"
    if path.is_file():
        print_page.finish(path, _state["lang"], config.site_name, config.site_description,
                          _state.get("source_essays"), config.repo_url,
                          *print_page.site_commit())


def on_shutdown():
    katex_math.stop()
