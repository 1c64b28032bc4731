"""toyllm: a miniature, CPU-only, vLLM-shaped inference engine used by isobench's demo.

The "model" is a deterministic pseudo-model (next token = hash of the context) and GPU work
is simulated with sleeps, so the engine-level inefficiencies are real and measurable.
"""
from toyllm.sampling_params import SamplingParams
from toyllm.entrypoints.llm import LLM

__version__ = "0.1.0"

__all__ = ["LLM", "SamplingParams", "__version__"]
