import pytest
from pathlib import Path
from test_reading import *  # noqa
from test_figures_in_browser import *  # noqa

@pytest.fixture(scope="session")
def built_site():
    return Path(__file__).resolve().parent.parent / "site"
