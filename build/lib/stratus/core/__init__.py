"""Mechanisms shared by every product: clock, ids, database, errors, identity, quotas."""
