"""The scorer is a pure package: importing it loads neither Django nor DRF, so it can be tested
and benchmarked alone (BELOTE_SCORING.md)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LOADED_FRAMEWORKS = (
    "import sys, belote.scoring; "
    "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'}))"
)


def test_the_scorer_imports_no_framework():
    loaded = subprocess.run(
        [sys.executable, "-c", LOADED_FRAMEWORKS], cwd=ROOT, capture_output=True, text=True
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"
