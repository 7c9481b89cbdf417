"""The print page's helpers: tools/pages/print_page.py's anchor renaming is mkdocs-print-site's
own, output for output; the cover names the newest commit that changed the site."""

import datetime as dt
import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

import mkdocs_print_site_plugin.urls

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import print_page  # noqa: E402

# The plugin's module loaded afresh: the build's hooks replace its update_anchor_ids.
_spec = importlib.util.spec_from_file_location("plugin_urls", mkdocs_print_site_plugin.urls.__file__)
plugin_urls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plugin_urls)

PIECES = ['<h2', '<h3 class="x"', '<li', '<sup', '<div', '<a', '<span', ' id="a"', ' id="b"',
          ' ID="c"', ' id="a', '"', '>', '</li>', '</h2>', '\n', ' ', 'text', 'a', 'b']


def test_anchor_renaming_gives_the_plugins_output_on_random_html():
    original = plugin_urls.update_anchor_ids
    rng = random.Random(0)
    for _ in range(1500):
        page = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        assert print_page.update_anchor_ids(page, "p") == original(page, "p"), page


def test_anchor_renaming_on_a_page_like_ours():
    # a long line of tags with no id after them (an inline figure) is where the plugin's own
    # scan is slow; the output must still be the plugin's
    page = ('<h2 id="why">Why</h2>\n<p id="keep">x</p>\n<li id="fn:1">note</li>'
            '<sup id="fnref:1"><a href="#fn:1">1</a></sup>\n' + "<span>" * 300 + "\n")
    renamed = print_page.update_anchor_ids(page, "k")
    assert renamed == plugin_urls.update_anchor_ids(page, "k")
    assert '<h2 id="k-why">' in renamed and '<li id="k-fn:1">' in renamed and '<p id="keep">' in renamed


def test_headings_lose_the_whitespace_inside_their_tags():
    # a nav section's heading as mkdocs-print-site writes it, and a page's heading as Material does
    section = ("<h1>Three roles, one vector<a class='headerlink' href='#section-3' title='Permanent link'></a>\n"
               "                        </h1>")
    assert print_page.trim_headings(section) == \
        "<h1>Three roles, one vector<a class='headerlink' href='#section-3' title='Permanent link'></a></h1>"
    page = '<h2 id="why">\n Why <code>x</code>\n</h2>\n<p> text </p>\n<header> keep </header><hr>\n'
    assert print_page.trim_headings(page) == '<h2 id="why">Why <code>x</code></h2>\n<p> text </p>\n<header> keep </header><hr>\n'


def test_the_print_page_opens_every_fold_but_a_whole_script():
    page = ('<details class="note"><summary>Answer</summary>42</details>'
            '<details class="abstract" open><summary>Numbers</summary></details>'
            '<details class="snippet-listing" data-snippet="x"><summary>The whole script</summary></details>')
    assert print_page.open_folds(page) == (
        '<details open class="note"><summary>Answer</summary>42</details>'
        '<details class="abstract" open><summary>Numbers</summary></details>'
        '<details class="snippet-listing" data-snippet="x"><summary>The whole script</summary></details>')


def test_the_cover_names_the_newest_commit_that_changed_the_site(tmp_path, tmp_path_factory):
    def git(*args, date="2026-03-04T12:00:00+00:00"):
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
               "PATH": os.environ["PATH"]}
        return subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def write(path, text="x"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)

    today = dt.date(2026, 12, 1)
    git("init", "-q")
    write("docs/en/page.md")
    git("add", "."), git("commit", "-qm", "a page")
    site = git("rev-parse", "--short=10", "HEAD")
    for path in ("tests/test_page.py", "README.md", "CONTRIBUTING.zh.md", ".github/workflows/ci.yml",
                 "tools/contributing/preview_bench.py"):
        write(path)
    git("add", "."), git("commit", "-qm", "tests and notes", date="2026-05-06T12:00:00+00:00")
    assert print_page.site_commit(tmp_path, today) == (site, dt.date(2026, 3, 4))
    write("tests/test_page.py", "changed, not committed")
    assert print_page.site_commit(tmp_path, today) == (site, dt.date(2026, 3, 4))
    write("docs/en/page.md", "changed, not committed")
    assert print_page.site_commit(tmp_path, today) == (site + "*", today)
    write("tools/contributing/new_page.py")  # a tool that is not a bench: part of the site
    git("add", "."), git("commit", "-qm", "a tool", date="2026-07-08T12:00:00+00:00")
    assert print_page.site_commit(tmp_path, today) == (git("rev-parse", "--short=10", "HEAD"), dt.date(2026, 7, 8))
    plain = tmp_path_factory.mktemp("plain")
    assert print_page.site_commit(plain, today) == ("", today)
