"""schemathesis against the service's own OpenAPI description: generated requests to every
operation (bounded examples) get documented answers, never a 5xx.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from citeaudit.service._openapi import OPENAPI
from test_service import Server, server, start  # noqa: F401 - the real server fixtures
from thorough import examples


@schemathesis.serializer("application/x-ndjson")
def _ndjson(_: Any, value: Any) -> bytes:
    """Generated NDJSON bodies: the generated string as it is (it need not be NDJSON)."""
    return value.encode() if isinstance(value, str) else json.dumps(value).encode()


schema = schemathesis.openapi.from_dict(OPENAPI)
# What the service promises: no 5xx, and answers as described. (Requests the schema allows can
# still be refused with 422: a grammar name or a rule code is checked against what is
# installed, which a schema cannot say.)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


@schema.parametrize()
@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
def test_every_operation_answers_as_described(case: Any, server: Server) -> None:  # noqa: F811
    response = case.call(base_url=server.url, timeout=30)
    assert response.status_code < 500, response.text
    case.validate_response(response, checks=CHECKS)
