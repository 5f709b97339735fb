"""The providers behind the model port (app/agent/model.py): `open_model` opens the chosen one's adapter, `list_models`
asks its endpoint which models it offers. Each provider's SDK is imported only when it is used.
"""

from __future__ import annotations

from app.agent.model import ModelPort
from app.agent.settings import ModelChoice


def open_model(choice: ModelChoice, timeout: float = 120.0) -> ModelPort:
    """The adapter of the chosen provider (its SDK imported only now)."""
    if choice.provider == "openai":
        from app.agent.model_openai import OpenAIModel

        return OpenAIModel(choice, timeout)
    from app.agent.model_anthropic import AnthropicModel

    return AnthropicModel(choice, timeout)


def list_models(choice: ModelChoice, timeout: float = 20.0) -> list[str]:
    """(Blocking: call it on a worker thread.) The model names the endpoint lists (`GET /v1/models`), sorted."""
    if choice.provider == "openai":
        from app.agent.model_openai import list_openai_models

        return list_openai_models(choice, timeout)
    from app.agent.model_anthropic import list_anthropic_models

    return list_anthropic_models(choice, timeout)
