"""The built-in answer formats: free ``text``, a ``claims`` list, the ``structured`` answer
contract and providers' responses (``anthropic``, ``openai-responses``, ``openai-chat``,
``openai-assistants``, ``cohere``, ``gemini``, ``gemini-interactions``, ``bedrock``,
``bedrock-converse``, ``perplexity``, ``perplexity-responses``, ``azure-on-your-data``,
``mistral``, ``xai``).
Each is registered in the ``citeaudit.formats`` registry (see
:class:`~citeaudit.core.AnswerFormat`) when this package is imported; installed formats are
added by their entry points.
"""

from citeaudit.core import FORMATS as _FORMATS
from citeaudit.formats._anthropic import AnthropicFormat
from citeaudit.formats._assistants import OpenAIAssistantsFormat
from citeaudit.formats._bedrock import BedrockFormat
from citeaudit.formats._claims import ClaimsFormat
from citeaudit.formats._cohere import CohereFormat
from citeaudit.formats._converse import BedrockConverseFormat
from citeaudit.formats._events import EventAssembler
from citeaudit.formats._gemini import GeminiFormat
from citeaudit.formats._interactions import GeminiInteractionsFormat
from citeaudit.formats._marked import (
    AzureOnYourDataFormat,
    PerplexityFormat,
    PerplexityResponsesFormat,
)
from citeaudit.formats._mistral import MistralFormat
from citeaudit.formats._openai import OpenAIChatFormat, OpenAIResponsesFormat
from citeaudit.formats._structured import StructuredFormat
from citeaudit.formats._text import TextFormat
from citeaudit.formats._xai import XAIFormat

ANTHROPIC = AnthropicFormat()
OPENAI_RESPONSES = OpenAIResponsesFormat()
OPENAI_CHAT = OpenAIChatFormat()
OPENAI_ASSISTANTS = OpenAIAssistantsFormat()
COHERE = CohereFormat()
GEMINI = GeminiFormat()
GEMINI_INTERACTIONS = GeminiInteractionsFormat()
PERPLEXITY = PerplexityFormat()
PERPLEXITY_RESPONSES = PerplexityResponsesFormat()
BEDROCK = BedrockFormat()
BEDROCK_CONVERSE = BedrockConverseFormat()
MISTRAL = MistralFormat()
AZURE_ON_YOUR_DATA = AzureOnYourDataFormat()
XAI = XAIFormat()
TEXT = TextFormat()
CLAIMS = ClaimsFormat()
STRUCTURED = StructuredFormat()

# In the order a format is recognised in: free text and the engine's own shapes first.
_FORMATS.add_builtins({name: f"{__name__}:{constant}" for name, constant in (
    ("text", "TEXT"), ("claims", "CLAIMS"), ("structured", "STRUCTURED"),
    ("anthropic", "ANTHROPIC"), ("openai-responses", "OPENAI_RESPONSES"),
    ("openai-chat", "OPENAI_CHAT"), ("openai-assistants", "OPENAI_ASSISTANTS"),
    ("cohere", "COHERE"), ("gemini", "GEMINI"), ("gemini-interactions", "GEMINI_INTERACTIONS"),
    ("bedrock", "BEDROCK"), ("bedrock-converse", "BEDROCK_CONVERSE"),
    ("perplexity", "PERPLEXITY"), ("perplexity-responses", "PERPLEXITY_RESPONSES"),
    ("azure-on-your-data", "AZURE_ON_YOUR_DATA"), ("mistral", "MISTRAL"), ("xai", "XAI"))})

__all__ = [
    "ANTHROPIC",
    "AZURE_ON_YOUR_DATA",
    "BEDROCK",
    "BEDROCK_CONVERSE",
    "CLAIMS",
    "COHERE",
    "GEMINI",
    "GEMINI_INTERACTIONS",
    "MISTRAL",
    "OPENAI_ASSISTANTS",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "PERPLEXITY",
    "PERPLEXITY_RESPONSES",
    "STRUCTURED",
    "TEXT",
    "XAI",
    "AnthropicFormat",
    "AzureOnYourDataFormat",
    "BedrockConverseFormat",
    "BedrockFormat",
    "ClaimsFormat",
    "CohereFormat",
    "EventAssembler",
    "GeminiFormat",
    "GeminiInteractionsFormat",
    "MistralFormat",
    "OpenAIAssistantsFormat",
    "OpenAIChatFormat",
    "OpenAIResponsesFormat",
    "PerplexityFormat",
    "PerplexityResponsesFormat",
    "StructuredFormat",
    "TextFormat",
    "XAIFormat",
]
