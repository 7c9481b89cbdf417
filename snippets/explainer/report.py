"""Record what a snippet measured: numbers for the prose, figures in both
languages, and data for a page's own script. Verdicts are not a snippet's business:
the rules in docs/claims.yml decide them from the numbers (tools/claims.py).

The build sets ``EXPLAINER_OUTPUT_DIR``; run by hand, a snippet writes to
``outputs/<snippet name>/`` and prints everything it recorded.
"""

import json
import math
import os
import sys
from pathlib import Path

from explainer import plotting

class Report:
    def __init__(self, name: str | None = None):
        self.name = name or Path(sys.argv[0]).stem
        default_dir = Path("outputs") / self.name
        self.output_dir = Path(os.environ.get("EXPLAINER_OUTPUT_DIR", default_dir))
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.numbers: dict[str, dict] = {}
        self.figures: dict[str, dict] = {}
        self.data_files: dict[str, str] = {}

    def number(self, key: str, value: float, fmt: str = "{:.3f}", *,
               en: str = "", zh: str = "") -> float:
        """Keep ``value`` for the prose, formatted with ``fmt``; returns it unchanged.

        ``en``/``zh`` say what the number is, for the page's table of its numbers."""
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"number '{key}' is {value}; prose cannot cite it")
        self.numbers[key] = {"value": value, "text": fmt.format(value)}
        if en or zh:
            self.numbers[key]["about"] = {"en": en, "zh": zh}
        print(f"{key} = {self.numbers[key]['text']}")
        return value

    def figure(self, key: str, fig, lang: str, alt: str, caption: str = "") -> None:
        """Save ``fig`` as ``<key>.<lang>.svg`` with its alt text and its one-line
        caption (the takeaway, shown under the figure) in that language, and a twin
        for the dark theme, ``<key>.<lang>.dark.svg``. Records the figure's smallest
        text size (pt), which the browser tests turn into rendered pixels."""
        if lang not in plotting.LANGS:
            raise ValueError(f"figure '{key}': language must be one of {plotting.LANGS}, not {lang!r}")
        if not alt.strip():
            raise ValueError(f"figure '{key}' ({lang}) needs alt text")
        filename, dark = f"{key}.{lang}.svg", f"{key}.{lang}.dark.svg"
        plotting.save_svg(fig, self.output_dir / filename, close=False)
        smallest = plotting.smallest_font_pt(fig)  # after drawing: tick labels exist now
        plotting.to_dark(fig)
        plotting.save_svg(fig, self.output_dir / dark)
        self.figures.setdefault(key, {})[lang] = {"file": filename, "dark_file": dark, "alt": alt,
                                                  "caption": caption, "smallest_font_pt": smallest}
        print(f"figure {key} ({lang}) -> {filename} (smallest text {smallest:g} pt)")

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
                   "data": self.data_files}
        path.write_text(json.dumps(results, ensure_ascii=False, indent=1, sort_keys=True),
                        encoding="utf-8")
        return path
