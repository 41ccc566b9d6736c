"""Writes of the seasons (KORT_RULES §10): the first season, the admin's changes to the current
one, and the opening of the next one when the ladder has finalized the last."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from domain.errors import Conflict, RuleError
from seasons.dates import one_month_after
from seasons.models import Season, SeasonStatus, season_name


def season_one_open(*, starts_at: datetime | None = None, using: str = "default") -> Season:
    """Season 1, opened now (or at ``starts_at``) for one calendar month if there is no season
    yet; the existing season 1 otherwise."""
    start = starts_at or timezone.now()
    try:
        with transaction.atomic(using=using):
            season, _ = Season.objects.using(using).get_or_create(
                number=1,
                defaults={
                    "name": season_name(1),
                    "starts_at": start,
                    "ends_at": one_month_after(start),
                },
            )
    except IntegrityError:  # opened at the same moment by another process
        season = Season.objects.using(using).get(number=1)
    return season


def season_current_check(season: Season) -> None:
    """Raises Conflict unless ``season`` is current: only the current season changes (§10)."""
    if season.status != SeasonStatus.CURRENT:
        raise Conflict(
            "season",
            f"season {season.number} is {season.status}; only the current season may change",
        )


def season_end_check(season: Season, ends_at: datetime, now: datetime) -> None:
    """Whether the end of ``season`` may move to ``ends_at`` (KORT_RULES §10: the admin may move
    the current season's end).

    Raises:
        Conflict: the season is not current, or its end has already come (it awaits its
            finalization, and matches completed since belong to the next season).
        RuleError: ``ends_at`` is not in the future (field ``ends_at``).
    """
    season_current_check(season)
    if season.ends_at <= now:
        raise Conflict(
            "season",
            f"season {season.number} ended at {season.ends_at.isoformat()} and awaits its "
            "finalization: run `python manage.py season_end`",
        )
    if ends_at <= now:
        raise RuleError(
            "ends_at", f"a season's end must be in the future; got {ends_at.isoformat()}"
        )


def season_update(
    number: int, *, name: str | None = None, ends_at: datetime | None = None
) -> Season:
    """Rename the current season and/or move its end (KORT_RULES §10), holding the season's
    row lock, so that no season end is claimed meanwhile.

    Raises:
        Conflict: the season is not current; see also :func:`season_end_check`.
        RuleError: a blank name (field ``name``); see :func:`season_end_check`.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update().get(number=number)
        season_current_check(season)
        if ends_at is not None:
            season_end_check(season, ends_at, timezone.now())
            season.ends_at = ends_at
        if name is not None:
            if not name.strip():
                raise RuleError("name", "a season's name must not be blank")
            season.name = name.strip()
        season.save(update_fields=["name", "ends_at"])
    return season


def season_next_open(season: Season, at: datetime, reset_floor: int) -> Season:
    """Mark ``season`` (finalizing, row locked by the caller) finalized at ``at`` and open the
    next one: it starts at the moment ``season`` ended and lasts one calendar month; its soft
    reset (floor ``reset_floor``, KORT_RULES §10) takes effect at ``at`` and is pending until
    :func:`season_reset_written`."""
    season.status = SeasonStatus.FINALIZED
    season.finalized_at = at
    season.save(update_fields=["status", "finalized_at"])
    number = season.number + 1
    return Season.objects.create(
        number=number,
        name=season_name(number),
        starts_at=season.ends_at,
        ends_at=one_month_after(season.ends_at),
        reset_at=at,
        reset_floor=reset_floor,
    )


def season_reset_written(number: int) -> None:
    """The soft reset that opened season ``number`` is written to every player's row: it is
    no longer pending (``Season.reset_floor``)."""
    Season.objects.filter(number=number).update(reset_floor=None)
