"""Record what a snippet measured: numbers for the prose, figures in both
languages, and data for a page's own script. Verdicts are not a snippet's business:
the rules in docs/claims.yml decide them from the numbers (tools/claims.py).

The build sets ``EXPLAINER_OUTPUT_DIR``; run by hand, a snippet writes to
``outputs/<snippet name>/`` and prints everything it recorded.
"""

import json
import math
import os
import re
import sys
from pathlib import Path

from explainer import narrow as narrow_layout
from explainer import plotting
# A number over seeds, defined once for the snippets and the build's resampling of the seeds
# (re-exported: ``from explainer.report import over_seeds``).
from explainer.seed_statistics import PAST_LINE, over_seeds  # noqa: F401

def _flat(values):
    values = values.tolist() if hasattr(values, "tolist") else values
    for value in values if isinstance(values, (list, tuple)) else [values]:
        yield from _flat(value) if isinstance(value, (list, tuple)) else [value]


def share_word(k: float, n: int) -> str:
    """How many of ``n`` (seeds, models) a count ``k`` is, as an outcome sentence words it:
    ``"most"`` (more than half), ``"half"`` (exactly half) or ``"few"`` (fewer than half).
    A snippet records it with ``Report.category``; the page words each case with ``choose``."""
    if n <= 0:
        raise ValueError(f"a share of {n} things")
    return "most" if k > n / 2 else "half" if k == n / 2 else "few"


def all_word(k: float, n: int) -> str:
    """``"all"`` when ``k`` is ``n``, ``"none"`` when it is 0, else ``"some"``: how many of ``n``
    models or seeds an outcome sentence says do something ("In all 8 models", "In 3 of 8 models")."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"{k} of {n} things")
    return "all" if k == n else "none" if k == 0 else "some"


# A category names which outcome a run found: a plain lower-case word ("most", "falls", "yes").
CATEGORY = re.compile(r"[a-z][a-z0-9_]*")


# What a number is decides how each language writes it (``Report.number(..., kind=...)``):
#   share   a part of a whole, as a percent in both languages ("36%")
#   count   a whole number of things ("6", never "6.0"; English "1,000", Chinese "1000")
#   params  a large count of parameters ("22.6 million", "约 2260 万")
#   p       a p-value ("0.27", "3.1e-12"; "< 1e-300" when it underflowed)
# Without a kind, ``fmt`` decides, but an exact zero is written "0" (not "0.0e+00") and a
# value that rounds to zero never carries a minus sign ("-0.0000").
KINDS = ("share", "count", "params", "p")
NEGATIVE_ZERO = re.compile(r"-(?=0(\.0*)?(e[+-]?\d+)?%?$)")


def formatted(value: float, fmt: str = "{:.3f}", kind: str = "") -> dict[str, str]:
    """The number as each language writes it: ``{"en": ..., "zh": ...}``."""
    if kind and kind not in KINDS:
        raise ValueError(f"unknown kind of number {kind!r} (one of {', '.join(KINDS)})")
    if kind == "count":
        if not math.isclose(value, round(value), abs_tol=1e-9):
            raise ValueError(f"a count must be a whole number, not {value}")
        # English groups thousands (1,000 draws); Chinese writes 1000 unless ``fmt`` groups them
        return {"en": f"{round(value):,d}", "zh": f"{round(value):,d}" if "," in fmt else f"{round(value):d}"}
    if kind == "params":
        return {"en": f"{value / 1e6:.1f} million", "zh": f"约 {value / 1e4:.0f} 万"}
    if kind == "p":
        text = "< 1e-300" if value <= 1e-300 else f"{value:.2g}"
        return {"en": text, "zh": text}
    if kind == "share":
        fmt = fmt if "%" in fmt else "{:.0%}"
    text = ("0%" if "%" in fmt else "0") if value == 0 else NEGATIVE_ZERO.sub("", fmt.format(value))
    return {"en": text, "zh": text}


STRINGS_DIR = Path(__file__).resolve().parents[1]   # snippets/: each snippet's strings file beside it


class Report:
    def __init__(self, name: str | None = None):
        self.name = name or Path(sys.argv[0]).stem
        default_dir = Path("outputs") / self.name
        self.output_dir = Path(os.environ.get("EXPLAINER_OUTPUT_DIR", default_dir))
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.numbers: dict[str, dict] = {}
        self.figures: dict[str, dict] = {}
        self.data_files: dict[str, str] = {}
        self.texts: dict[str, dict[str, str]] = {}
        self.categories: dict[str, str] = {}

    def number(self, key: str, value: float, fmt: str = "{:.3f}", *, kind: str = "",
               en: str = "", zh: str = "", per_seed=None, of: str = "", chance: float = 0.0,
               line: float | None = None, resampled=None) -> float:
        """Keep ``value`` for the prose, formatted by its ``kind`` (see ``KINDS``) or else
        with ``fmt``, once per language; returns it unchanged.

        ``en``/``zh`` say what the number is, for the page's table of its numbers.
        A number computed over random seeds also keeps its ``per_seed`` values and how it
        follows from them (``of``: see ``over_seeds``; a count of seeds past a ``line`` states
        it), so the build can resample the seeds and see whether a verdict survives
        (tools/verdicts/claims.py).
        A number measured on a real model's items (sentences, pairs, words) may keep the same
        number ``resampled``: recomputed on each of the snippet's resamplings of its items
        (the same draws, in the same order, for every number of the snippet; record ``n_items``
        too), so the build sees whether a verdict survives another draw of the items."""
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"number '{key}' is {value}; prose cannot cite it")
        texts = formatted(value, fmt, kind)
        self.numbers[key] = {"value": value, "text": texts["en"], "texts": texts}
        if kind:
            self.numbers[key]["kind"] = kind
        if en or zh:
            self.numbers[key]["about"] = {"en": en, "zh": zh}
        if (of in PAST_LINE) != (line is not None):
            raise ValueError(f"number '{key}': a count of seeds past a line (and only that) states "
                             f"its line")
        if per_seed is not None:
            per_seed = [float(v) for v in _flat(per_seed)]
            expected = over_seeds(per_seed, of, chance, line if line is not None else 0.0)
            if not math.isclose(value, expected, rel_tol=1e-5, abs_tol=1e-9):
                raise ValueError(f"number '{key}' is {value}, but the {of} of its per-seed "
                                 f"values is {expected}")
            self.numbers[key].update(per_seed=per_seed, of=of)
            if of == "binomial_p":
                self.numbers[key]["chance"] = chance
            if of in PAST_LINE:
                self.numbers[key]["line"] = float(line)
        if resampled is not None:
            resampled = [float(v) for v in _flat(resampled)]
            if not all(math.isfinite(v) for v in resampled):
                raise ValueError(f"number '{key}': a resampled value is not finite")
            self.numbers[key]["resampled"] = resampled
        print(f"{key} = {self.numbers[key]['text']}")
        return value

    def figure_text(self) -> dict[str, dict]:
        """The words of this snippet's figures (titles, labels, alt texts, captions), by
        language: the ``[figure_text.en]`` and ``[figure_text.zh]`` tables of its strings file
        beside it (snippets/three_roles/views.strings.toml for "three_roles.views"). A notebook
        carries them written out in its cell instead (tools/running/notebooks.py)."""
        import tomllib

        path = STRINGS_DIR.joinpath(*self.name.split(".")).with_suffix(".strings.toml")
        tables = tomllib.loads(path.read_text(encoding="utf-8")).get("figure_text", {})
        if set(tables) != {"en", "zh"} or set(tables["en"]) != set(tables["zh"]):
            raise ValueError(f"{path}: [figure_text.en] and [figure_text.zh] need the same names")
        return tables

    def text(self, key: str, *, en: str, zh: str) -> None:
        """Keep a phrase that states an outcome, built from the numbers by the snippet (so a
        page says "slower in most seeds" only when the run says so): ``{{ text name.key }}``."""
        if not (en.strip() and zh.strip()):
            raise ValueError(f"text '{key}' needs both languages")
        self.texts[key] = {"en": en, "zh": zh}
        print(f"{key} = {en}")

    def category(self, key: str, word: str) -> str:
        """Keep which outcome the run found, as one plain word from a small set the snippet
        states ("most" / "half" / "few": ``share_word``; "falls" / "rises"; "yes" / "no"). The
        page words each outcome in its own language: ``{{ choose("key", most="…", few="…") }}``
        shows the option the word names (so a page says "slower in most seeds" only when the
        run says so). Returns ``word``."""
        if not isinstance(word, str) or not CATEGORY.fullmatch(word):
            raise ValueError(f"category '{key}' must be a plain lower-case word, not {word!r}")
        self.categories[key] = word
        print(f"{key} = {word}")
        return word

    def figure(self, key: str, fig, lang: str, alt: str, caption: str = "", narrow=None) -> None:
        """Save ``fig`` as ``<key>.<lang>.svg`` with its alt text and its one-line
        caption (the takeaway, shown under the figure) in that language, and a twin
        for the dark theme, ``<key>.<lang>.dark.svg``. Records the figure's smallest
        text size (pt), which the browser tests turn into rendered pixels. Data lines and
        markers are made to stand out from the background in both (plotting.legible_data).

        A narrow variant for a phone's column is saved beside them (``<key>.<lang>.narrow.svg``
        and its dark twin): by default ``fig`` re-laid out by ``narrow.narrow_copy``; a figure
        that needs its own passes ``narrow``, a function that takes a copy of ``fig`` and
        returns the figure to save (or a figure drawn for the phone)."""
        if lang not in plotting.LANGS:
            raise ValueError(f"figure '{key}': language must be one of {plotting.LANGS}, not {lang!r}")
        if not alt.strip():
            raise ValueError(f"figure '{key}' ({lang}) needs alt text")
        if narrow is None:
            small = narrow_layout.narrow_copy(fig)
        elif callable(narrow):
            small = narrow(narrow_layout.copy_figure(fig))
        else:
            small = narrow
        filename, dark = f"{key}.{lang}.svg", f"{key}.{lang}.dark.svg"
        plotting.legible_data(fig, background="white")
        plotting.save_svg(fig, self.output_dir / filename, close=False)
        smallest = plotting.smallest_font_pt(fig)  # after drawing: tick labels exist now
        plotting.to_dark(fig)
        plotting.legible_data(fig, background=plotting.DARK_BACKGROUND)
        plotting.save_svg(fig, self.output_dir / dark)
        if os.environ.get("EXPLAINER_NARROW_PROBLEMS"):  # while working on the narrow layouts
            for problem in narrow_layout.problems(small):
                print(f"narrow {key} ({lang}): {problem}", file=sys.stderr)
        narrow_file, narrow_dark = f"{key}.{lang}.narrow.svg", f"{key}.{lang}.narrow.dark.svg"
        plotting.legible_data(small, background="white")
        plotting.save_svg(small, self.output_dir / narrow_file, close=False)
        narrow_smallest = plotting.smallest_font_pt(small)
        plotting.to_dark(small)
        plotting.legible_data(small, background=plotting.DARK_BACKGROUND)
        plotting.save_svg(small, self.output_dir / narrow_dark)
        self.figures.setdefault(key, {})[lang] = {
            "file": filename, "dark_file": dark, "alt": alt, "caption": caption,
            "smallest_font_pt": smallest, "narrow_file": narrow_file, "narrow_dark_file": narrow_dark,
            "narrow_smallest_font_pt": narrow_smallest}
        print(f"figure {key} ({lang}) -> {filename} (smallest text {smallest:g} pt; "
              f"narrow {narrow_smallest:g} pt)")

    def data(self, key: str, value) -> None:
        """Publish ``value`` as ``<key>.json`` for a page's own script (e.g. an explorer)."""
        filename = f"{key}.json"
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
        (self.output_dir / filename).write_text(text, encoding="utf-8")
        self.data_files[key] = filename
        print(f"data {key} -> {filename} ({len(text) // 1024} KB)")

    def save(self) -> Path:
        """Write ``results.json``; every figure must exist in every language."""
        for key, by_lang in self.figures.items():
            missing = set(plotting.LANGS) - set(by_lang)
            if missing:
                raise ValueError(f"figure '{key}' has no version in {sorted(missing)}")
        path = self.output_dir / "results.json"
        results = {"snippet": self.name, "numbers": self.numbers, "figures": self.figures,
                   "data": self.data_files, "texts": self.texts,
                   "categories": self.categories}
        path.write_text(json.dumps(results, ensure_ascii=False, indent=1, sort_keys=True),
                        encoding="utf-8")
        return path
