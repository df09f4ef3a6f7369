"""The documentation site builds with ``mkdocs build --strict`` (the docs extra): every page
in the nav, every link and anchor found, the generated pages made. CI builds it as a step of
its own too; here it skips, naming the extra, where MkDocs is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from requires import needs

needs("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", part="docs")

ROOT = Path(__file__).parents[1]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    for page in ("index.html", "reference/cli/index.html", "reference/api/index.html",
                 "rules/index.html", "rules/CA101/index.html", "getting-started/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    api = (tmp_path / "site" / "reference/api/index.html").read_text(encoding="utf-8")
    assert 'id="citeaudit.audit"' in api
