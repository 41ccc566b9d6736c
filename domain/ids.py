"""Ids on the wire: positive integers that fit the database's 64-bit ids."""

ID_PATTERN = "[0-9]{1,18}"
"""An id in a path: up to 18 digits, so a larger number is a 404 like any unknown id, never an
overflow (the ``id`` path converter and the viewsets' ``lookup_value_regex`` use it)."""
