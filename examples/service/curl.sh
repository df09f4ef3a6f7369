#!/usr/bin/env bash
# One curl call per endpoint of `citeaudit serve`: bash curl.sh [URL] (default local port 8000).
# With tokens set on the server, export CITEAUDIT_TOKEN first.
set -euo pipefail
url="${1:-http://127.0.0.1:8000}"
auth=()
if [[ -n "${CITEAUDIT_TOKEN:-}" ]]; then auth=(-H "authorization: Bearer $CITEAUDIT_TOKEN"); fi
post() { curl -sS "${auth[@]}" -H 'content-type: application/json' "$url$1" -d "$2"; echo; }

# The report for one answer (Report.to_dict()).
post /v1/audit '{"answer": "Refunds take 14 days [1][7].", "sources": ["Refunds take 14 days."]}'
# The served answer, rendered: the unverifiable [7] removed, [1] a chip.
post /v1/guard '{"answer": "Refunds take 14 days [1][7].", "sources": ["Refunds take 14 days."], "render": "markdown"}'
# The prompt block and the snapshot, from one numbering.
post /v1/context '{"passages": ["Refunds take 14 days.", "Shipping is free over 50 euros."]}'
# Dataset records as NDJSON: a result line each, then the aggregate.
printf '%s\n' '{"id": "a", "sources": ["Refunds take 14 days."], "answer": "Refunds take 14 days [1]."}' \
  '{"id": "b", "sources": ["Refunds take 14 days."], "answer": "Refunds take 30 days [2]."}' |
  curl -sS "${auth[@]}" -H 'content-type: application/x-ndjson' --data-binary @- "$url/v1/eval"
# An answer as it streams: settled text as it settles, then the report.
printf '%s\n' '{"sources": ["Refunds take 14 days."]}' '{"chunk": "Refunds take 14 "}' \
  '{"chunk": "days [1][9]."}' |
  curl -sS "${auth[@]}" -H 'content-type: application/x-ndjson' --data-binary @- "$url/v1/stream"
curl -sS "$url/healthz"; echo
curl -sS "$url/readyz"; echo
# Read whole, then cut: a pipe closed early (head) would fail curl with a write error.
metrics=$(curl -sS "$url/metrics")
awk '/^citeaudit_requests_total/ && n++ < 3' <<<"$metrics"
spec=$(curl -sS "$url/openapi.json")
echo "${spec:0:80}"
