"""One date format for the Russian pages, Django's long one (the day, the month's name in the
genitive, the year and its abbreviation, then the time in UTC); tables and texts alike."""

YEAR = "\u0433."  # the abbreviation of «год» that follows a year

DATE_FORMAT = f"j E Y {YEAR}"
DATETIME_FORMAT = f"j E Y {YEAR}, G:i"
SHORT_DATE_FORMAT = DATE_FORMAT
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
