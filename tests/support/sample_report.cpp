#include "support/sample_report.h"

namespace pecheck::testing {

RunReport sample_report() {
  RunReport r;
  r.pecheck_version = "0.1.0";
  r.command = "pecheck run --seed 7";
  r.seed = 7;
  r.cases = 100;
  r.max_size = 100;
  r.max_position = 10000;
  r.started_at = "2026-11-22T00:00:00Z";
  r.seconds = 1.25;
  PropertyInfo bounded{.id = "pe.bounded", .family = "pe", .claim = "every component lies in [-1, 1]",
                       .sources = "001", .op = Op::encode, .expect = Expect::holds,
                       .expect_for = {{"integer", Expect::violated}}};
  PropertyInfo causal{.id = "attention.causal_permutation_equivariance", .family = "attention",
                      .claim = "equivariance with a causal mask", .sources = "000", .op = Op::attention,
                      .expect = Expect::violated, .expect_for = {}};
  r.properties = {bounded, causal};
  r.subjects = {{"builtin:sinusoidal", "sinusoidal", "float64", "unspecified", "sinusoidal", {"encode"}},
                {"builtin:integer", "integer", "float64", "unspecified", "integer", {"encode"}},
                {"cmd:python3 'x.py'", "x <b>", "float32", "interleaved", "attention", {"attention"}}};

  const Tolerance bound{8.9e-16, "8 · u(float64) · 1 · 1 = 8.9e-16"};
  Check within;
  within.name = "within the amplitude";
  within.bound = Bound::upper(1, 1, "1 rounding · A");
  within.where.position = 0;
  within.where.component = 0;

  PropertyResult holds;
  holds.property = "pe.bounded";
  holds.subject = "builtin:sinusoidal";
  holds.cases = 100;
  holds.seconds = 0.001;
  holds.seed = 11;
  holds.outcome = Held{JudgedCheck{within, bound, CheckVerdict::pass}, ""};
  // What the shape ladder's cases reached (docs/coverage.md): one gated axis.
  holds.coverage.ladder_cases = 4;
  holds.coverage.axes[Axis::width] = AxisCoverage{512, 512, 0, "the shape ladder's default"};

  PropertyResult witness = holds;
  witness.subject = "builtin:integer";
  witness.expectation = Expect::violated;
  witness.cases = 2;
  witness.shrinks = 5;
  witness.shrink_tries = 12;
  Counterexample c;
  c.inputs = json{{"dim", 2}, {"position", 2}};
  c.check = "within the amplitude";
  c.error = 1.0;
  c.tolerance = bound;
  c.location.position = 2;
  c.location.component = 0;
  c.observed = 2.0;
  c.expected = "|value| <= 1";
  c.note = "excess";
  witness.outcome = Violated{c, "BoAcl5iYvVnbkVGZ", ""};

  PropertyResult failed;
  failed.property = "attention.causal_permutation_equivariance";
  failed.subject = "cmd:python3 'x.py'";
  failed.expectation = Expect::violated;
  failed.cases = 100;
  failed.outcome = Held{};  // "expected a violation; none found in 100 cases"

  PropertyResult broken = failed;
  broken.property = "pe.bounded";
  broken.outcome = SubjectFailed{{"timed out after 2 s waiting for the answer to encode (id 3)",
                                  R"({"id":3,"op":"encode"})", "", "Traceback <script>\n]]>", "still running"}};

  r.results = {holds, witness, broken, failed};
  r.exit_code = 3;
  return r;
}

}  // namespace pecheck::testing
