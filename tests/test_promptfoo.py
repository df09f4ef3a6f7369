"""promptfoo: the assertion as promptfoo calls it, and promptfoo itself (npm) running the
example configuration on recorded answers with its offline echo provider (the command
docs/integrations.md shows).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from citeaudit.integrations.promptfoo import get_assert
from requires import absent

EXAMPLE = Path(__file__).parents[1] / "examples" / "promptfoo"
# The example's own install (npm ci --prefix examples/promptfoo): the promptfoo part.
PROMPTFOO = EXAMPLE / "node_modules" / ".bin" / "promptfoo"
SOURCES = ["Refunds are issued within 14 days of receiving the returned item.",
           "Express shipping takes 1 business day."]


def test_the_grading_result() -> None:
    good = get_assert("Refunds are issued within 14 days [1].",
                      {"vars": {"sources": json.dumps(SOURCES)}})
    assert (good["pass"], good["reason"]) == (True, "citations hold (ok)")
    assert good["namedScores"] == {"citation_precision": 1.0, "citation_recall": 0.5,
                                   "claim_coverage": 1.0}
    bad = get_assert("Refunds take 14 days [1]. Credit never expires [3].",
                     {"vars": {"passages": SOURCES}, "config": {"sources_var": "passages"}})
    assert bad["pass"] is False
    assert bad["reason"] == "CA202 out-of-range"
    assert bad["componentResults"] == [
        {"pass": False, "score": 0.0,
         "reason": "CA202 error: [3] cites 3, outside the 2 retrieved sources (1..2)"}]
    strict = get_assert("Refunds are issued within 14 days [1].",
                        {"vars": {"sources": SOURCES}, "config": {"min_recall": 0.9}})
    assert strict["pass"] is False
    assert "recall" in strict["reason"]
    unusable = get_assert("x", {"vars": {"sources": "[not json"}})
    assert unusable["pass"] is False
    assert unusable["reason"].startswith("citeaudit: cannot audit: vars.sources: not JSON")


def test_promptfoo_runs_the_example(tmp_path: Path) -> None:
    if not PROMPTFOO.exists():
        absent("promptfoo", "promptfoo")
    for name in ("promptfooconfig.yaml", "citeaudit_assert.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    environment = {**os.environ, "PROMPTFOO_PYTHON": sys.executable, "HOME": str(tmp_path),
                   "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1",
                   "PROMPTFOO_DISABLE_SHARING": "1", "NO_COLOR": "1"}
    done = subprocess.run([str(PROMPTFOO), "eval", "-c", "promptfooconfig.yaml",
                           "--no-cache", "--no-progress-bar", "-o", "results.json"],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 100, done.stdout + done.stderr  # promptfoo: a test failed
    results = json.loads((tmp_path / "results.json").read_text())["results"]["results"]
    verdicts = {r["testCase"]["description"]: r["gradingResult"] for r in results}
    assert {name: grade["pass"] for name, grade in verdicts.items()} == {
        "cites what it was given": True, "cites a passage that was never sent": False,
        "a refusal, accepted as one": True}
    failed = verdicts["cites a passage that was never sent"]
    assert "CA202" in json.dumps(failed)
