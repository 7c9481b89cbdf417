"""Which GitHub repository the site's links point at (Colab, downloads, edit links).

The repository the build runs in, where that is known: ``GITHUB_REPOSITORY`` in GitHub
Actions, else the ``origin`` remote of the checkout when it is on GitHub. Otherwise the
``repo_url`` committed in mkdocs.yml. So a fork's site sends its readers to the fork.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GITHUB_REMOTE = re.compile(r"^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
                           r"([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def from_remote(remote: str) -> str | None:
    """https://github.com/<owner>/<name> for a GitHub remote URL (https or ssh), else None."""
    match = GITHUB_REMOTE.match(remote.strip())
    return f"https://github.com/{match.group(1)}/{match.group(2)}" if match else None


def origin_remote(root: Path = ROOT) -> str | None:
    try:
        done = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def repo_url(committed: str, environ=os.environ, root: Path = ROOT) -> str:
    if environ.get("GITHUB_REPOSITORY"):
        server = environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        return f"{server}/{environ['GITHUB_REPOSITORY']}"
    remote = origin_remote(root)
    return (remote and from_remote(remote)) or committed
