"""What the sweeper looks for in the ladder (KORT_RULES §7; API.md "Nothing is lost"): matches
completed and not finalized, whose finalization task was lost. Finalization claims a match once,
so a second task for it changes nothing."""

from delivery.sweep import Sweep
from matches.selectors import matches_awaiting_finalization
from ranking.tasks import finalize_match

SWEEPS = (
    Sweep("matches awaiting finalization", finalize_match.name, matches_awaiting_finalization),
)
