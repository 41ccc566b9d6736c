"""``manage.py season_end [--season N] [--at ISO]``: end the current season now, or move its end
(KORT_RULES §10; API.md "Seasons").

- no option: end the current season now, by the same path as the scheduled end, and return
  once the ladder is finalized;
- ``--season N``: end season N only if it is still current; if it is already finalizing or
  finalized, wait for that and exit 0 without ending another;
- ``--at 2026-12-31T00:00:00Z``: move the current season's end instead (a time without a zone
  is UTC). An end in the past or an unparsable time is refused.

A refusal exits non-zero, says why and changes nothing.
"""

from argparse import ArgumentTypeError
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from domain.errors import DomainError
from ranking.models import SeasonEnd
from ranking.season_end import season_end
from seasons.models import SeasonStatus
from seasons.selectors import current_season, season_get
from seasons.services import season_update


def moment(text: str) -> datetime:
    """An ISO 8601 time; one without a zone is UTC."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as error:
        raise ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from error
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = (
        "End the current season now (or season N, if it is still current) and finalize the "
        "ladder: pending matches, final standings, the soft reset, the next season. With --at, "
        "move the current season's end instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--season", type=int, help="the season to end (it must be current)")
        parser.add_argument(
            "--at", type=moment, help="move the current season's end to this ISO 8601 time"
        )

    def handle(self, *args, season, at, **options):
        try:
            if at is not None:
                self._end_move(season, at)
            else:
                self._end(season)
        except DomainError as error:
            raise CommandError(error.message) from error

    def _end_move(self, number: int | None, at: datetime) -> None:
        season = current_season() if number is None else season_get(number)
        moved = season_update(season.number, ends_at=at)
        self.stdout.write(
            f"{moved.name} (#{moved.number}) now ends at {moved.ends_at.isoformat()}."
        )

    def _end(self, number: int | None) -> None:
        season = current_season() if number is None else season_get(number)
        ended = season_end(season.number)
        end = SeasonEnd.objects.get(season=season.number)
        opened = current_season()
        if ended:
            how = "ended now"
        elif season.status == SeasonStatus.FINALIZED:
            how = "was already finalized"
        else:
            how = "was already ending; that end is done now"
        self.stdout.write(
            f"Season {season.number} {how}: finalized with {end.standings} standing(s). "
            f"{opened.name} (#{opened.number}) is open until {opened.ends_at.isoformat()}."
        )
