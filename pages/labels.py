"""What the pages call the game's values, in the reader's language: the terms of the help
pages (KORT_RULES §2, §4; the Russian page writes корт, ат-корт, бавян, ат-бавян, провал бавяна)."""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from matches.kort.cards import SUIT_BY_LETTER, Suit
from matches.kort.rules import Mode, Outcome, Team, Vote
from matches.live_vote.models import VoteStatus
from matches.models import MatchStatus, RoundStatus
from seasons.models import SeasonStatus

OUTCOMES = {
    Outcome.WIN: pgettext_lazy("round outcome", "Win"),
    Outcome.KORT: _("Kort"),
    Outcome.AT_KORT: _("At-kort"),
    Outcome.BAVAN: _("Bavan"),
    Outcome.AT_BAVAN: _("At-bavan"),
    Outcome.BAVAN_FAILED: _("Failed Bavan"),
}
MODES = {Mode.RANKED: _("Ranked"), Mode.ROOM: _("Room")}
MATCH_STATUSES = {
    MatchStatus.IN_PROGRESS: _("In progress"),
    MatchStatus.COMPLETED: _("Over, the results are being counted"),
    MatchStatus.FINALIZED: _("Finished"),
    MatchStatus.VOID: _("Void: its cups were taken back"),
}
OPEN_ROUNDS = {RoundStatus.VOTING: _("Bavan vote"), RoundStatus.BAVAN: _("Playing to 13:0")}
RESULTS = {True: _("Won"), False: _("Lost")}
"""A finished match from a player's side, keyed by whether their team won."""
CUPS = _("Cups")
TEAMS = {Team.A: _("Team A"), Team.B: _("Team B")}
VOTES = {Vote.BAVAN: _("Bavan!"), Vote.STOP: _("Stop")}
VOTE_STATUSES = {
    VoteStatus.OPEN: _("Deciding: Bavan or stop"),
    VoteStatus.GO: _("BAVAN! Playing to 13:0"),
}
SEASON_STATUSES = {
    SeasonStatus.CURRENT: _("Under way"),
    SeasonStatus.FINALIZING: _("Ending: the final standings are being counted"),
    SeasonStatus.FINALIZED: _("Over: the final standings"),
}
REFUSED = {True: _("No Bavan: the Kort counts"), False: _("No Bavan: the At-kort counts")}
"""A refused vote's line, keyed by whether the 7:0 team is the trump team (Kort) or not."""

SUIT_SIGNS = dict(zip(Suit, "\u2660\u2665\u2666\u2663", strict=True))
"""The suits' signs, in the order of their wire letters S H D C."""


def card_shown(card: str) -> str:
    """A card in wire notation (``"10H"``, KORT_RULES §1) as the page shows it: ``"10♥"``."""
    return card[:-1] + SUIT_SIGNS[SUIT_BY_LETTER[card[-1]]]
