from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "KORT matches"

    def ready(self):
        # The live vote's services queue its tasks by name: register them in every process.
        from matches.live_vote import tasks  # noqa: F401
