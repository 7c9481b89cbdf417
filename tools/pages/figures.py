"""Figures on a page: ``{{ figure("key") }}`` becomes a numbered, captioned
<figure> that opens full size, with a twin drawn for the dark theme.

    <figure class="explainer-figure" id="figure-2">
      <a class="figure-zoom" href=".../key.svg" data-dark-href=".../key.dark.svg">
        <picture><source media="(max-width: 599px)" srcset=".../key.narrow.svg" ...>
          <img class="figure-light" ...></picture>
        <picture><source ... srcset=".../key.narrow.dark.svg" ...><img class="figure-dark" ...></picture>
      </a>
      <figcaption>Figure 2. The takeaway, in the page's language.</figcaption>
    </figure>

explainer.css shows one of the two images by colour scheme; the browser picks, by the
window's width, the wide figure (drawn for the 688-px column) or its narrow variant (drawn
for a phone's, explainer/narrow.py); figure-zoom.js opens the wide one full size in a
dialog (without JavaScript the link opens the SVG).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

LABEL = {"en": "Figure {n}.", "zh": "图 {n}"}
SEPARATOR = {"en": " ", "zh": "\u3000"}  # the ideographic space after 图 2
ZOOM = {"en": "Open figure {n} full size", "zh": "查看图 {n} 的大图"}
CUE = {"en": "⤢ Tap to enlarge", "zh": "⤢ 轻点放大"}  # shown where the column shrinks a figure
# Below this window width the narrow variant is shown: there the wide figure, shrunk to the
# column (about the window less 32 px), would show 9-pt text under 10 px.
NARROW_MEDIA = "(max-width: 599px)"


def svg_size(path: Path) -> tuple[int, int]:
    """CSS pixels of a matplotlib SVG (sized in pt), so the page reserves its space."""
    head = path.read_text(encoding="utf-8")[:2000]
    width, height = (float(re.search(rf'{side}="([\d.]+)pt"', head).group(1))
                     for side in ("width", "height"))
    return round(width * 4 / 3), round(height * 4 / 3)


def site_path(name: str, key: str, dark: bool = False, narrow: bool = False) -> str:
    """Where a figure lives in the built site."""
    return f"figures/{name.replace('.', '/')}/{key}{'.narrow' if narrow else ''}{'.dark' if dark else ''}.svg"


def html_figure(number: int, name: str, key: str, figure: dict, output_dir: Path, url, lang: str) -> str:
    """The <figure> for one recorded figure (``results.json`` entry of one language);
    ``url(path)`` links a site path from the page (MkDocs does not rewrite raw HTML)."""
    light, dark = url(site_path(name, key)), url(site_path(name, key, dark=True))
    width, height = svg_size(output_dir / figure["file"])
    alt = html.escape(figure["alt"], quote=True)
    label = LABEL[lang].format(n=number)
    zoom = html.escape(ZOOM[lang].format(n=number), quote=True)
    caption = html.escape(figure["caption"])

    def picture(scheme: str, src: str, narrow_file: str) -> str:
        """The image, with its narrow variant as a <source> for a phone's width."""
        narrow_width, narrow_height = svg_size(output_dir / narrow_file)
        narrow = url(site_path(name, key, dark=scheme == "dark", narrow=True))
        return (f'<picture><source media="{NARROW_MEDIA}" srcset="{narrow}" '
                f'width="{narrow_width}" height="{narrow_height}">'
                f'<img class="figure-{scheme}" src="{src}" alt="{alt}" width="{width}" height="{height}" '
                f'loading="lazy" decoding="async"></picture>')

    return (f'<figure class="explainer-figure" id="figure-{number}" data-figure="{name}.{key}" '
            f'data-smallest-font-pt="{figure["smallest_font_pt"]}" '
            f'data-narrow-smallest-font-pt="{figure["narrow_smallest_font_pt"]}">\n'
            f'<a class="figure-zoom" href="{light}" data-dark-href="{dark}" title="{zoom}" data-cue="{CUE[lang]}">'
            f'{picture("light", light, figure["narrow_file"])}'
            f'{picture("dark", dark, figure["narrow_dark_file"])}</a>\n'
            f'<figcaption><span class="figure-number">{label}</span>{SEPARATOR[lang]}{caption}</figcaption>'
            f'\n</figure>\n')
