"""citeaudit inside the tools RAG teams already use, one subpackage a tool, each behind the
extra of the same name: :mod:`~citeaudit.integrations.langchain`,
:mod:`~citeaudit.integrations.llamaindex`, :mod:`~citeaudit.integrations.haystack`,
:mod:`~citeaudit.integrations.dspy`, :mod:`~citeaudit.integrations.deepeval`,
:mod:`~citeaudit.integrations.ragas`, :mod:`~citeaudit.integrations.mlflow`,
:mod:`~citeaudit.integrations.promptfoo`, Spark (:mod:`~citeaudit.integrations.spark`,
documented as :mod:`citeaudit.spark`), and the pytest plugin
(:mod:`~citeaudit.integrations.pytest`, loaded by pytest itself).

Nothing is imported here: importing one integration loads only its own framework.
"""
