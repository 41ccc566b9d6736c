"""What the sweeper looks for in the live vote (KORT_RULES §4; API.md "Nothing is lost"): open
votes past their deadline and open votes whose bot votes are due, whose timed task was lost.
Both tasks judge the time themselves and do nothing for a vote already settled."""

from delivery.sweep import Sweep
from matches.live_vote.selectors import votes_past_deadline, votes_with_bot_votes_due
from matches.live_vote.services import BOT_VOTES_TASK, EXPIRE_TASK

SWEEPS = (
    Sweep("live votes past their deadline", EXPIRE_TASK, votes_past_deadline),
    Sweep("live votes with bot votes due", BOT_VOTES_TASK, votes_with_bot_votes_due),
)
