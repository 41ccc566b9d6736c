from django.apps import AppConfig


class RankingConfig(AppConfig):
    name = "ranking"

    def ready(self):
        # The match API shows each match's cups, which are the ledger's: it asks the ladder.
        from matches.cups import matches_cups_provide
        from ranking.selectors import matches_cups

        matches_cups_provide(matches_cups)
