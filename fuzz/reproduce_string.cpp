// Fuzz target: a --reproduce string (src/cli/options_validation.cpp), copied
// from a report that may come from anywhere. reproduce_problem decodes it
// with RapidCheck's own decoder and checks what it names; it must return a
// reason or "", never crash, hang or allocate without bound.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/options_validation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> ids = {"pe.bounded", "pe.reference_values", "rope.composition"};
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)pecheck::cli::reproduce_problem(text, ids, 100);
  return 0;
}
