"""At a desktop's width, nothing in an article is cut off without a cue: the phone's test
(test_nothing_clipped.py) at 1280 × 800, in a file of its own so that two test workers share
the two widths' pages out."""

import pytest

from test_nothing_clipped import no_block_cut_off


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_at_1280_px_no_output_code_or_table_is_cut_off_without_a_scroll_cue(
        browser, site_url, built_site, lang_root):
    no_block_cut_off(browser, site_url, built_site, lang_root, 1280, 800)
