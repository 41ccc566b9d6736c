"""Celery tasks of the ladder: thin wrappers that take ids and call a service."""

from celery import shared_task
from django.conf import settings

from delivery.retry import TRANSIENT_ERRORS
from ranking.season_end import end_due_seasons
from ranking.services import SeasonNotOpen, match_finalize

SEASON_END_TIME_LIMIT = 3600
"""Seconds a season end may run in one task (a million players' standings and reset); a run
stopped by the limit is resumed by the next check (KORT_RULES §10)."""


@shared_task(
    bind=True,
    name="ranking.finalize_match",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=True,
    max_retries=5,
)
def finalize_match(self, match_id: int) -> bool:
    """Finalize a completed match; a second run changes nothing (see ``match_finalize``).
    Queued by name (``ranking.finalize_match``) when a match is completed.

    A match completed after its season's end waits for the next season to open (KORT_RULES
    §10): a worker queues the task again for one season check later; in-process (the embedded
    default, where no beat runs) the due season end is done first, then the match finalized.
    """
    ended = False
    while True:
        try:
            return match_finalize(match_id)
        except SeasonNotOpen:
            if ended:
                raise
            if not self.request.is_eager:
                finalize_match.apply_async(
                    (match_id,), countdown=settings.KORT_SEASON_CHECK_SECONDS
                )
                return False
        end_due_seasons(wait=True)
        ended = True


@shared_task(
    name="ranking.end_due_seasons",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=SEASON_END_TIME_LIMIT,
    soft_time_limit=SEASON_END_TIME_LIMIT - 60,
)
def end_due_seasons_task() -> list[int]:
    """End the seasons whose end has come (``end_due_seasons``): Celery beat runs it every
    ``KORT_SEASON_CHECK_SECONDS``. Two at once end a season once."""
    return end_due_seasons()
