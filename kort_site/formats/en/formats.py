"""One date format for the English pages, Django's long one: "March 5, 2026", "March 5, 2026,
noon", "Dec. 2, 2026, 3:06 a.m." (UTC); tables and texts alike."""

DATE_FORMAT = "N j, Y"
DATETIME_FORMAT = "N j, Y, P"
SHORT_DATE_FORMAT = DATE_FORMAT
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
