"""Reading the pages' HTML in tests: the rows of a table and the text a reader sees."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser


def _collapsed(text: str) -> str:
    """Runs of spaces and line breaks as one space; a no-break space (Russian digit grouping)
    is kept."""
    return re.sub(r"[ \t\r\n]+", " ", text).strip()


@dataclass
class Row:
    """A body row of a table: each cell's text (spaces collapsed), the links in it and the
    row's attributes."""

    cells: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    attrs: dict[str, str | None] = field(default_factory=dict)


class _TableReader(HTMLParser):
    def __init__(self, table_id: str):
        super().__init__()
        self.table_id = table_id
        self.inside = self.in_head = False
        self.rows: list[Row] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == self.table_id:
            self.inside = True
        elif not self.inside:
            return
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr" and not self.in_head:
            self.rows.append(Row(attrs=attrs))
        elif tag in ("td", "th") and not self.in_head:
            self.cell = []
        elif tag == "a" and self.cell is not None:
            self.rows[-1].links.append(attrs["href"])

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "table":
            self.inside = False
        elif tag == "thead":
            self.in_head = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].cells.append(_collapsed("".join(self.cell)))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str | bytes, table_id: str) -> list[Row]:
    """The body rows of the table ``id=table_id`` of a page."""
    reader = _TableReader(table_id)
    reader.feed(html.decode() if isinstance(html, bytes) else html)
    return reader.rows


def text_of(html: str | bytes) -> str:
    """The page's text without tags, scripts or styles, spaces collapsed."""
    html = html.decode() if isinstance(html, bytes) else html
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return _collapsed(re.sub(r"<[^>]+>", " ", html))


def json_script(html: str | bytes, element_id: str):
    """The value of the ``json_script`` element ``element_id`` of a page."""
    html = html.decode() if isinstance(html, bytes) else html
    found = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert found is not None, f"no json_script {element_id!r} on the page"
    return json.loads(found.group(1))


def number(text: str) -> int:
    """A whole number as the pages write it (grouped, a negative one with U+2212 MINUS SIGN)."""
    return int(text.replace("\u2212", "-").replace(",", "").replace("\xa0", "").replace(" ", ""))
