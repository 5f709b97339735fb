"""Environments: named, persistent, isolated login containers (pure Python, no Qt)."""
