"""Where a run's model answers come from, chosen by `MODEL`:

- a model name: the OpenAI-compatible endpoint at `OPENAI_BASE_URL` with `OPENAI_API_KEY`
  (OpenAI, vLLM, Ollama, llama.cpp's server, DeepSeek): `openai_compatible.py`;
- `manual` or `manual:<who plays the model>`: requests written to files, answers read from files or
  stdin, so anyone (a person, a coding assistant) can play the model: `manual.py`;
- `replay:<transcript>`: answers from a recorded transcript, failing loudly on any other question:
  `replay.py`.

A provider has `provider` and `model` (what the transcript states) and
`complete(request, call, timeout) -> reply`; a reply is `{"message": <assistant message>,
"usage": {"prompt_tokens", "completion_tokens"}, "estimated": bool, "raw": <the answer>}`.
"""

from pathlib import Path

from agents.errors import AgentError
from agents.providers.manual import Manual
from agents.providers.openai_compatible import OpenAICompatible
from agents.providers.replay import Replay


def make_provider(
    model: str,
    *,
    base_url: str | None,
    api_key: str | None,
    folder: Path,
    paths: dict[str, str],
    stdin: bool = False,
):
    """The provider `model` (the `MODEL` setting) names; `folder` is the run's folder."""
    check_model(model, api_key)
    if model.startswith("replay:"):
        return Replay(Path(model.removeprefix("replay:")), paths)
    if model == "manual" or model.startswith("manual:"):
        return Manual(model.partition(":")[2] or "unnamed", folder, stdin)
    return OpenAICompatible(model, base_url, api_key)


def check_model(model: str, api_key: str | None) -> None:
    """Refuse a setting that cannot work, before a sandbox is made for it."""
    if model.startswith("replay:") or model == "manual" or model.startswith("manual:"):
        return
    if not model:
        raise AgentError(
            "set MODEL to the model's name at OPENAI_BASE_URL (or manual, replay:PATH)"
        )
    if not api_key:
        raise AgentError(
            f"MODEL={model} needs OPENAI_API_KEY (any non-empty value for a local server that "
            "takes none), and OPENAI_BASE_URL unless the endpoint is OpenAI's"
        )
