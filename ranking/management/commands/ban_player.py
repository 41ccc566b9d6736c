"""``manage.py ban_player ID [--refund --reason "..."]``: ban a player (API.md "Conventions"),
with ``--refund`` voiding every finalized ranked match of theirs completed in the current
season first (KORT_RULES §11; logic in ``ranking.services.player_ban_refund``). Run again, it
changes nothing and says so. Exits non-zero with a message, changing nothing, for an unknown
player, a refund without a reason, or a season end that is running."""

from django.core.management.base import BaseCommand, CommandError

from domain.errors import DomainError
from players.models import Player
from ranking.services import player_ban, player_ban_refund


class Command(BaseCommand):
    help = (
        "Ban a player: off the leaderboard, no new matches. With --refund, first void every "
        "finalized ranked match of theirs completed in the current season (KORT_RULES §11)."
    )

    def add_arguments(self, parser):
        parser.add_argument("player_id", type=int)
        parser.add_argument(
            "--refund",
            action="store_true",
            help="void the player's finalized ranked matches of the current season",
        )
        parser.add_argument("--reason", default="", help="why (required with --refund)")

    def handle(self, *args, player_id, refund, reason, **options):
        try:
            if refund:
                done = player_ban_refund(player_id, reason)
                voided, banned = done.voided, done.banned
            else:
                voided, banned = [], player_ban(_player(player_id), True)
        except DomainError as error:
            raise CommandError(error.message) from error
        if not voided and not banned:
            self.stdout.write(f"Player {player_id} is banned already; nothing changed.")
            return
        listed = ", ".join(map(str, voided)) or "none"
        self.stdout.write(
            f"Player {player_id} is banned"
            + (" (was banned already)" if not banned else "")
            + (f"; voided {len(voided)} match(es): {listed}." if refund else ".")
        )


def _player(player_id: int) -> Player:
    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        raise CommandError(f"player {player_id} does not exist")
    return found
