// Fuzz target: a counterexample file or regression-store entry, as
// `pecheck replay FILE` and the regression store read it (src/replay/replay.cpp).
// Such files come from CI artifacts and bug reports: parse_recorded_case
// promises to throw nothing but ReplayFileError, so any other exception, a
// crash or a sanitizer report is a finding.
#include <cstdint>

#include "pecheck/replay/replay.h"

#ifdef PECHECK_FUZZ_PROPERTY_CHECK
#include "pecheck/property/registry.h"
#endif

using namespace pecheck;

namespace {

// The hook for the properties' own input validation (shape, type and range
// of a recorded input, checked before anything is measured). Configure with
// -DPECHECK_FUZZ_PROPERTY_CHECK=<function>, a void(const PropertyDef&, const
// json& inputs) that throws ReplayFileError on inputs that do not fit, and
// this target calls it on every recorded case that parses. Until properties
// have one, nothing is called here.
void check_inputs([[maybe_unused]] const RecordedCase& recorded) {
#ifdef PECHECK_FUZZ_PROPERTY_CHECK
  if (const PropertyDef* property = find_property(recorded.property)) {
    PECHECK_FUZZ_PROPERTY_CHECK(*property, recorded.inputs);
  }
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json record;
  try {
    record = json::parse(data, data + size);  // as read_recorded_case reads a file (it catches json::exception)
  } catch (const json::exception&) {
    return 0;
  }
  try {
    const RecordedCase recorded = parse_recorded_case(record);
    for (const Dtype dtype : {Dtype::float64, Dtype::float32, Dtype::float16, Dtype::bfloat16}) {
      (void)error_model_of(recorded, dtype);
    }
    check_inputs(recorded);
  } catch (const ReplayFileError&) {
  }
  return 0;
}
