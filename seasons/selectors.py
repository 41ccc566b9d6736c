"""Reads of the seasons (KORT_RULES §10; API.md "Seasons")."""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from domain.errors import NotFound
from seasons.dates import one_month_after
from seasons.models import Season, SeasonStatus


def current_season() -> Season:
    """The current season: the newest one (``finalizing`` while its end runs, until the next
    one opens). The leaderboard is its board (KORT_RULES §10). A plain statement: requests and
    finalizations read it often."""
    table = connection.ops.quote_name(Season._meta.db_table)
    query = f"SELECT * FROM {table} ORDER BY number DESC LIMIT 1"
    return next(iter(Season.objects.raw(query)), None) or _no_season()


def _no_season() -> Season:
    raise Season.DoesNotExist("no season: run `python manage.py migrate`, which opens season 1")


def season_get(number: int) -> Season:
    """The season numbered ``number``.

    Raises:
        NotFound: there is no such season.
    """
    season = Season.objects.filter(number=number).first()
    if season is None:
        raise NotFound(f"season {number} does not exist")
    return season


def seasons_newest_first() -> QuerySet[Season]:
    return Season.objects.order_by("-number")


def seasons_due(now: datetime | None = None) -> list[Season]:
    """The seasons that need ending, oldest first: the current season once its end has come,
    and a season whose end was started and not finished (a stopped run resumes it): still
    finalizing, or finalized with the next season's reset still being written."""
    due = Q(status=SeasonStatus.CURRENT, ends_at__lte=now or timezone.now())
    resetting = Season.objects.filter(number=OuterRef("number") + 1, reset_floor__isnull=False)
    unfinished = Q(status=SeasonStatus.FINALIZING) | Q(Exists(resetting))
    return list(Season.objects.filter(due | unfinished).order_by("number"))


def season_end_running() -> bool:
    """Whether a season's end is claimed and not done, its reset still being written included
    (KORT_RULES §10)."""
    return Season.objects.filter(
        Q(status=SeasonStatus.FINALIZING) | Q(reset_floor__isnull=False)
    ).exists()


def season_of_completion() -> tuple[int, datetime]:
    """``(season number, now)`` for a match completed now (KORT_RULES §10: a match belongs to
    the season in which it was completed, whenever it is finalized).

    Call it inside the transaction that completes the match. On PostgreSQL it holds a share
    lock on the newest season's row until that transaction ends, and takes the time once it
    has the lock: a season end claimed meanwhile waits for the match and then sees it, and a
    match completed after the claim belongs to the next season. Past the newest season's end
    (its end not run yet), the match belongs to the season that will be open then: the next
    one, or a later one when whole months have passed (each lasts one calendar month).
    """
    newest = current_season_shared()
    now = timezone.now()
    if now < newest.ends_at:
        return newest.number, now
    number, ends_at = newest.number + 1, one_month_after(newest.ends_at)
    while now >= ends_at:
        number, ends_at = number + 1, one_month_after(ends_at)
    return number, now


def current_season_shared() -> Season:
    """The current season, read under a share lock on PostgreSQL that lasts until the caller's
    transaction ends: its end cannot be claimed meanwhile (the claim waits), while other
    holders of the same lock go on at once."""
    if connection.vendor != "postgresql":  # SQLite: one writer at a time holds the database
        return current_season()
    table = connection.ops.quote_name(Season._meta.db_table)
    query = f"SELECT * FROM {table} ORDER BY number DESC LIMIT 1 FOR SHARE"
    return next(iter(Season.objects.raw(query)), None) or _no_season()
