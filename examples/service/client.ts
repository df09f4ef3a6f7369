// A TypeScript client for `citeaudit serve`: audit an answer, guard it, number passages.
// Build and run: npm install && npx tsc && node client.js http://127.0.0.1:8000 [TOKEN]

interface Finding {
  code: string;
  severity: "error" | "warning";
  message: string;
  claim: number | null;
}

interface Report {
  status: "ok" | "unverified" | "no_evidence";
  passed: boolean;
  findings: Finding[];
  metrics: { precision: number | null; recall: number | null; claim_coverage: number | null };
}

interface Guarded {
  text: string;
  withheld: boolean;
  report: Report;
  rendered?: string;
}

async function call<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const reply = await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) });
  const data = await reply.json();
  if (!reply.ok) throw new Error(`${reply.status}: ${data.error}`);
  return data as T;
}

async function main(): Promise<void> {
  const [base = "http://127.0.0.1:8000", token] = process.argv.slice(2);
  const sources = ["Refunds take 14 days.", "Express shipping takes 1 business day."];
  const answer = "Refunds take 14 days [1]. Express shipping takes 1 business day [2][7].";

  const report = await call<Report>(base, "/v1/audit", { answer, sources }, token);
  const guarded = await call<Guarded>(base, "/v1/guard",
    { answer, sources, policy: "strip", render: "html" }, token);
  const context = await call<{ prompt: string; fingerprint: string }>(base, "/v1/context",
    { passages: sources }, token);
  let refused = "";
  try {
    await call<Report>(base, "/v1/audit", { sources }, token);
  } catch (error) {
    refused = (error as Error).message;
  }
  console.log(JSON.stringify({
    status: report.status,
    passed: report.passed,
    codes: report.findings.map((f) => f.code),
    served: guarded.text,
    rendered: guarded.rendered?.startsWith('<div class="citeaudit-answer">') ?? false,
    fingerprint: context.fingerprint,
    refused,
  }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
