"""A season lasts one calendar month (KORT_RULES §10): the same day and time of the next month,
or that month's last day when it is shorter."""

from datetime import UTC, datetime

import pytest

from seasons.dates import one_month_after


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (datetime(2026, 1, 15, 9, 30, tzinfo=UTC), datetime(2026, 2, 15, 9, 30, tzinfo=UTC)),
        (datetime(2026, 1, 31, 23, 59, tzinfo=UTC), datetime(2026, 2, 28, 23, 59, tzinfo=UTC)),
        (datetime(2028, 1, 31, tzinfo=UTC), datetime(2028, 2, 29, tzinfo=UTC)),
        (datetime(2026, 3, 31, tzinfo=UTC), datetime(2026, 4, 30, tzinfo=UTC)),
        (datetime(2026, 12, 31, 12, tzinfo=UTC), datetime(2027, 1, 31, 12, tzinfo=UTC)),
        (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)),
    ],
)
def test_one_calendar_month(start, end):
    assert one_month_after(start) == end
