"""The table at the top of ``kort_site/settings.py`` lists every variable the settings read from
the environment (docs/production.md points operators at it)."""

import re
from pathlib import Path

import kort_site.settings

SOURCE = Path(kort_site.settings.__file__).read_text()
READ = re.compile(r'env(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"')


def test_every_variable_read_is_in_the_table():
    table = set(re.findall(r"^\| ([A-Z][A-Z0-9_]+) \|", kort_site.settings.__doc__ or "", re.M))
    read = set(READ.findall(SOURCE))
    assert read, "no variable found: the pattern no longer matches how settings are read"
    assert sorted(read - table) == []
