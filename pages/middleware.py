"""The language of a request (API.md "Players' pages")."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

API_PREFIX = "/api/"


class PagesLocaleMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` for everything but the API: the pages take their language
    from the ``/en/`` or ``/ru/`` prefix, and ``/`` (or any path without a prefix that a page
    has) redirects to the prefix ``Accept-Language`` picks. The API answers in
    ``LANGUAGE_CODE`` whatever the client's ``Accept-Language``, so its messages are the same
    for every client (API.md "Conventions")."""

    def process_request(self, request):
        if not request.path_info.startswith(API_PREFIX):
            return super().process_request(request)
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = translation.get_language()
        return None

    def process_response(self, request, response):
        if request.path_info.startswith(API_PREFIX):
            return response
        return super().process_response(request, response)
