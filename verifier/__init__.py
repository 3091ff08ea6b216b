"""The statute/case database and the verdicts drawn from it. Knows nothing of models or tokens."""

from verifier.config import default_database_url

__all__ = ["default_database_url"]
