"""Season dates (KORT_RULES §10), pure: no Django.

A season lasts one calendar month by default, and the next one starts at the moment the last
one ends.
"""

from __future__ import annotations

from calendar import monthrange
from datetime import datetime


def one_month_after(moment: datetime) -> datetime:
    """The same day and time of the next calendar month, or that month's last day when it is
    shorter (31 January -> 28 or 29 February). Keeps ``moment``'s time zone."""
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return moment.replace(year=year, month=month, day=min(moment.day, monthrange(year, month)[1]))
