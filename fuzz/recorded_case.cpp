// Fuzz target: a counterexample file or regression-store entry, as
// `pecheck replay FILE` and the regression store read it (src/replay/replay.cpp).
// Such files come from CI artifacts and bug reports: parse_recorded_case
// promises to throw nothing but ReplayFileError, so any other exception, a
// crash or a sanitizer report is a finding.
#include <cstdint>
#include <string_view>

#include "pecheck/core/strict_json.h"
#include "pecheck/property/registry.h"
#include "pecheck/replay/replay.h"

using namespace pecheck;

namespace {

// The properties' own input validation (shape, type, range and size of a
// recorded input, checked before anything is measured): it must refuse with
// InvalidInput, never crash, whatever the file holds.
void check_inputs(const RecordedCase& recorded) {
  const PropertyDef* property = find_property(recorded.property);
  if (property == nullptr || !property->impl.validate) return;
  try {
    property->impl.validate(recorded.inputs);
  } catch (const InvalidInput&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json record;
  try {
    // As read_recorded_case reads a file: strict JSON (no NUL, no byte-order mark, no key twice).
    record = parse_strict_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const StrictJsonError&) {
    return 0;
  }
  try {
    const RecordedCase recorded = parse_recorded_case(record);
    // Every tolerance the recorded error model gives must be a number a judge can use.
    for (const Dtype dtype : {Dtype::float64, Dtype::float32, Dtype::float16, Dtype::bfloat16}) {
      SubjectInfo info;
      info.dtype = dtype;
      (void)BoundModel(recorded.error_model, recorded.property, info).u(Stage::values);
    }
    check_inputs(recorded);
  } catch (const ReplayFileError&) {
  }
  return 0;
}
