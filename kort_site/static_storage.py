"""The static files as production serves them (``STORAGES["staticfiles"]``)."""

from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's hashed names and compressed copies, with the references inside CSS
    rewritten to the hashed names but a script's ``sourceMappingURL`` comment left as it is:
    the vendored libraries name source maps they do not ship (Chart.js), and a browser asks
    for one only with its developer tools open."""

    patterns = tuple(
        (extensions, rules)
        for extensions, rules in HashedFilesMixin.patterns
        if extensions != "*.js"
    )
