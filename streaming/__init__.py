"""Segment state machine and HTTP streaming service, built on protocols defined here."""

__all__: list[str] = []
