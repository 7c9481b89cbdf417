"""tools/contributing/house.py counts a snippet's code lines and its bookkeeping lines right."""

from tools.contributing.house import bookkeeping_lines, code_lines, floor, recording_statements

SNIPPET = '''"""A docstring
over two lines."""
import numpy as np
from explainer.report import Report   # recording: bookkeeping

report = Report("x")
# a comment

weights = np.ones(3) / 3
report.number("mean_weight", weights.mean(), "{:.2f}",
              en="mean weight", zh="平均权重")
for w in weights:
    ax.set_title(f"{w}")
'''


def test_code_lines_leave_out_blank_lines_comments_and_docstrings():
    assert code_lines(SNIPPET) == {3, 4, 6, 9, 10, 11, 12, 13}


def test_a_statement_that_records_labels_or_styles_counts_with_all_its_lines():
    # the import of the recorder, report (a name the recording uses), the two-line recording
    # call, and the styling call inside the loop; not the loop's own line, not the computation
    assert bookkeeping_lines(SNIPPET) == {4, 6, 10, 11, 13}


def test_the_floor_counts_each_recording_statement_as_one_line_and_drops_labels_and_styling():
    # science: lines 3, 9, 12 (the numpy import, the computation, the loop); the recorder's
    # import, report = Report(…) and the two-line call are three recording statements
    assert recording_statements(SNIPPET) == 3
    assert floor(SNIPPET) == 3 / (3 + 3)


def test_every_test_file_sits_where_its_subject_does():
    """tests/snippets/<path>/test_<name>.py tests snippets/<path>/<name>.py (a snippet's own
    test), tests/explainer/test_<module>.py the shared module snippets/explainer/<module>.py."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    strays = []
    for test in (root / "tests" / "snippets").rglob("test_*.py"):
        relative = test.relative_to(root / "tests" / "snippets")
        subject = root / "snippets" / relative.parent / f"{relative.name.removeprefix('test_')}"
        if not subject.is_file():
            strays.append(str(test.relative_to(root)))
    for test in (root / "tests" / "explainer").glob("test_*.py"):
        if not (root / "snippets" / "explainer" / test.name.removeprefix("test_")).is_file():
            strays.append(str(test.relative_to(root)))
    assert strays == [], "each test file is named after the snippet or module it tests"
