"""``manage.py void_match ID --reason "..."``: void a finalized match (KORT_RULES §11; logic in
``ranking.services.match_void``). Exits non-zero with a message, changing nothing, for an
unknown, unfinalized or already voided match."""

from django.core.management.base import BaseCommand, CommandError

from domain.errors import DomainError
from ranking.models import CupChange, CupKind
from ranking.services import match_void


class Command(BaseCommand):
    help = (
        "Void a finalized match: its cups are reversed by ledger rows of kind 'void' in the "
        "current season and it leaves its players' statistics (KORT_RULES §11)."
    )

    def add_arguments(self, parser):
        parser.add_argument("match_id", type=int)
        parser.add_argument("--reason", required=True, help="why the match is voided")

    def handle(self, *args, match_id, reason, **options):
        try:
            match = match_void(match_id, reason)
        except DomainError as error:
            raise CommandError(error.message) from error
        reversed_rows = CupChange.objects.filter(match=match, kind=CupKind.VOID).count()
        self.stdout.write(
            f"Match {match.pk} is void ({match.void_reason}): {reversed_rows} cup change(s) "
            f"reversed in season {match.void_season}."
        )
