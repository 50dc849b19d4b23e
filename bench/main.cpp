// pecheck_bench: cases per second of the headline properties through the
// harness (generation, subject call, measurement, RapidCheck bookkeeping)
// against the same arithmetic as a bare Eigen loop; the full matrix at one and
// two jobs (matrix.cpp); Python subjects through the protocol, unbatched and
// batched (protocol.cpp); fresh copies of a PyTorch subject, forked against
// started afresh (fresh_copies.cpp). Not a test: run it by hand,
//   cmake --build build --target pecheck_bench && build/bench/pecheck_bench [cases-scale] [SECTION…]
// with SECTION any of headlines, matrix, protocol, fresh (default: all four), or audit (the
// bounds against the errors of correct built-ins and planted precision bugs: bench/audit.cpp).
#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "bare_loops.h"
#include "fresh_copies.h"
#include "audit.h"
#include "matrix.h"
#include "protocol.h"
#include "pecheck/property/registry.h"
#include "pecheck/runner/cell.h"
#include "pecheck/subjects/factory.h"

using namespace pecheck;

namespace {

struct Headline {
  const char* label;
  const char* property;
  const char* subject;
  Position max_position;
  int cases;
  std::function<bench::BareResult(int, std::uint64_t)> bare;
};

double harness_rate(const Headline& h, int cases, std::uint64_t seed) {
  const PropertyDef* p = find_property(h.property);
  if (p == nullptr) throw std::runtime_error(std::string("no property ") + h.property);
  auto subject = make_subject(h.subject);
  RunOptions options;
  options.seed = seed;
  options.cases = cases;
  options.max_position = h.max_position;
  options.fixed_size = true;  // the stated distributions, not RapidCheck's small-to-full ramp
  const PropertyResult r = run_cell(*p, *subject, options, Expect::holds);
  if (!r.held()) throw std::runtime_error(fmt::format("{} did not hold: {}", h.property, r.message()));
  return r.cases / r.seconds;
}

template <class F>
double best_of(int repeats, F f) {
  double best = 0;
  for (int i = 0; i < repeats; ++i) best = std::max(best, f(static_cast<std::uint64_t>(i + 1)));
  return best;
}

void print_headlines(double scale) {
  const std::vector<Headline> headlines = {
      {"attention equivariance", "attention.permutation_equivariance", "builtin:attention", 10000, 20000,
       bench::attention_equivariance},
      {"offset-only dot", "pe.offset_only_dot", "builtin:sinusoidal", 10000, 20000, bench::offset_only_dot},
      {"bounded norm", "pe.constant_norm", "builtin:sinusoidal", 100000, 50000, bench::bounded_norm},
      {"add ⊇ concat", "combine.add_subsumes_concat", "builtin:combine", 10000, 20000,
       bench::add_subsumes_concat},
      {"module causality", "module.causality", "builtin:llama-block", 10000, 5000, bench::llama_causality},
  };
  fmt::print("{:<24} {:>14} {:>14} {:>10}\n", "property", "harness /s", "bare loop /s", "overhead");
  for (const auto& h : headlines) {
    const int cases = std::max(100, static_cast<int>(h.cases * scale));
    const double harness = best_of(3, [&](std::uint64_t seed) { return harness_rate(h, cases, seed); });
    double checksum = 0;
    const double bare = best_of(3, [&](std::uint64_t seed) {
      const auto r = h.bare(cases, seed);
      checksum += r.checksum;
      return r.cases_per_second;
    });
    fmt::print("{:<24} {:>14.0f} {:>14.0f} {:>9.2f}×   (checksum {:.2g})\n", h.label, harness, bare, bare / harness,
               checksum);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;
  std::set<std::string> sections(argv + std::min(argc, 2), argv + argc);
  if (sections.empty()) sections = {"headlines", "matrix", "protocol", "fresh"};
  if (sections.count("headlines")) print_headlines(scale);
  if (sections.count("matrix")) bench::print_matrix(scale);
  if (sections.count("protocol")) bench::print_protocol(scale);
  if (sections.count("fresh")) bench::print_fresh_copies(scale);
  if (sections.count("audit")) bench::print_audit(scale);
}
