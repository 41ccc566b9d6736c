# Player tokens are stored as service keys are: a prefix and a SHA-512 hash (players.models.
# PlayerToken), never the token. DRF's authtoken rows, the tokens so far, are hashed into the new
# table and deleted: each keeps working for KORT_PLAYER_TOKEN_DAYS from this migration, and
# the database then holds no usable token. (The authtoken app stays installed, its table empty,
# because this migration reads it; nothing else uses it.)

import datetime

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone
from rest_framework_api_key.crypto import KeyGenerator


def hash_drf_tokens(apps, schema_editor):
    alias = schema_editor.connection.alias
    drf_tokens = apps.get_model('authtoken', 'Token').objects.db_manager(alias)
    players = apps.get_model('players', 'Player').objects.db_manager(alias)
    tokens = apps.get_model('players', 'PlayerToken').objects.db_manager(alias)
    player_of_user = dict(
        players.filter(user__isnull=False).values_list('user_id', 'id')
    )
    expires_at = timezone.now() + datetime.timedelta(days=settings.KORT_PLAYER_TOKEN_DAYS)
    keys = KeyGenerator()
    tokens.bulk_create(
        tokens.model(
            player_id=player_of_user[drf_token.user_id],
            prefix=drf_token.key[:8],
            hashed_key=keys.hash(drf_token.key),
            created_at=drf_token.created,
            expires_at=expires_at,
        )
        for drf_token in drf_tokens.filter(user_id__in=player_of_user).iterator()
    )
    drf_tokens.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0005_username_unique_ignoring_case'),
        ('authtoken', '0004_alter_tokenproxy_options'),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('prefix', models.CharField(editable=False, max_length=8)),
                ('hashed_key', models.CharField(editable=False, max_length=150, unique=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('expires_at', models.DateTimeField(editable=False)),
                ('revoked_at', models.DateTimeField(blank=True, editable=False, null=True)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tokens', to='players.player')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.RunPython(hash_drf_tokens, migrations.RunPython.noop),
    ]
