from django.apps import AppConfig


class KortSiteConfig(AppConfig):
    name = "kort_site"
    verbose_name = "KORT Ladder site"

    def ready(self):
        from kort_site import checks  # noqa: F401  (registers the deploy checks)
        from kort_site.celery import app
        from kort_site.operations import metrics  # noqa: F401  (counts the tasks it runs)
        from kort_site.text_input import refuse_non_strings

        refuse_non_strings()

        # Every app's tasks are registered in every process, so a task queued by its name
        # (as matches queue the ladder's finalization) runs in-process when tasks are eager.
        app.autodiscover_tasks(force=True)
