"""``manage.py create_service_key NAME``: issue a service key for a game server."""

from django.core.management.base import BaseCommand
from rest_framework_api_key.models import APIKey


class Command(BaseCommand):
    help = "Issue a service key (Authorization: Api-Key <key>) and print it alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("name", help="who the key is for, e.g. the game server's name")

    def handle(self, *args, name, **options):
        _, key = APIKey.objects.create_key(name=name)
        self.stderr.write(f"Service key '{name}' issued. It is shown once; store it now.")
        self.stdout.write(key)
