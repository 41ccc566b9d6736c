"""What the pages call the game's values, in the reader's language: the terms of the help
pages (KORT_RULES §2, §4; the Russian page writes корт, ат-корт, бавян, ат-бавян, провал бавяна)."""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from matches.kort.cards import SUIT_BY_LETTER, Suit
from matches.kort.rules import Mode, Outcome, Team, Vote
from matches.live_vote.models import VoteStatus
from matches.models import MatchStatus, RoundStatus
from ranking.models import CupKind
from seasons.models import SeasonStatus, season_name

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
VOID_RESULT = _("Void")
"""A void match in a history: neither won nor lost (KORT_RULES §11)."""
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
LEDGER_KINDS = {CupKind.MATCH: _("Match %(number)s"), CupKind.VOID: _("Void of match %(number)s")}
RESET = _("Reset: %(season)s began")
"""A season's soft reset in the cups table (KORT_RULES §10), naming the season it opened."""
OFF_BOARD_BOT = _("Bots carry no cups and are never on the leaderboard.")
OFF_BOARD_BANNED = _("Banned players are off the leaderboard.")
OFF_BOARD_NO_MATCH = _("No finished ranked match yet in %(season)s.")
SILENCE = {
    True: _("Silent: counted as agreement"),
    False: _("Silent: counted as a stop"),
}
"""A seat silent until the deadline, keyed by whether the Bavan went (KORT_RULES §4)."""
NOT_NEEDED = _("No vote needed: a stop decided")
REFUSED = {True: _("No Bavan: the Kort counts"), False: _("No Bavan: the At-kort counts")}
"""A refused vote's line, keyed by whether the 7:0 team is the trump team (Kort) or not."""


def season_shown(season) -> str:
    """A season's name in the reader's language: the name a season opens with ("Season 2",
    ``seasons.models.season_name``) translated; a name the admin gave kept as given."""
    if season.name == season_name(season.number):
        return _("Season %(number)s") % {"number": season.number}
    return season.name


SUIT_SIGNS = dict(zip(Suit, "\u2660\u2665\u2666\u2663", strict=True))
"""The suits' signs, in the order of their wire letters S H D C."""


def card_shown(card: str) -> str:
    """A card in wire notation (``"10H"``, KORT_RULES §1) as the page shows it: ``"10♥"``."""
    return card[:-1] + SUIT_SIGNS[SUIT_BY_LETTER[card[-1]]]
