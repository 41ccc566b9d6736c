"""docs/architecture.md's table of apps says what ``tests/test_architecture.py`` enforces: the
same apps, each allowed the same imports."""

import re

from tests.test_architecture import ALLOWED, ROOT

ROW = re.compile(r"^\| `(\w+)` \| .* \| (.*) \|$", re.M)


def test_the_documented_table_is_the_enforced_one():
    text = (ROOT / "docs" / "architecture.md").read_text()
    documented = {
        app: set()
        if imports.strip().startswith("nothing")
        else set(re.findall(r"`(\w+)`", imports))
        for app, imports in ROW.findall(text)
    }
    assert documented == ALLOWED
