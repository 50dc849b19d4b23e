#pragma once
// What a fresh copy of a subject costs, forked from its zygote against
// started afresh (docs/fresh-copies.md), on the PyTorch Llama-style block of
// the tests: one copy and its first request; history_independence in cases
// per second; the default module profile at 100 cases and two jobs, end to
// end. Both paths are measured in the same run, so the ratio holds on a
// shared machine whose absolute timings drift.
namespace pecheck::bench {

void print_fresh_copies(double scale);

}  // namespace pecheck::bench
