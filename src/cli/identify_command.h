#pragma once
// `pecheck identify --subject SPEC`: probes an encoder or a rotary and prints
// the convention that best explains it and the version-2 hello that would
// declare it (pecheck/property/identify.h).
#include <cstdint>
#include <string>

#include "pecheck/core/tolerance.h"
#include "pecheck/runner/options.h"

namespace pecheck::cli {

struct IdentifyOptions {
  std::string subject;
  // The run's defaults (runner/options.h, core/tolerance.h), not copies of them.
  std::int64_t max_position = RunOptions{}.max_position;  // the largest position probed
  double tolerance_factor = kDefaultToleranceFactor;      // the error model's safety multiple
  double subject_timeout = RunOptions{}.subject_timeout;
  bool json = false;                  // one JSON object instead of text
  std::string executable;
};

// 0 a declarable convention explains every op probed, 1 none does (the
// closest is printed), 2 the spec is unusable, 3 the subject failed.
int identify(const IdentifyOptions& options);

}  // namespace pecheck::cli
