#include "cli/identify_command.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "pecheck/property/identify.h"
#include "pecheck/subjects/factory.h"

namespace pecheck::cli {

int identify(const IdentifyOptions& options) {
  SubjectPtr subject;
  try {
    subject = make_subject(options.subject,
                           {.timeout_seconds = options.subject_timeout, .executable = options.executable});
  } catch (const BadSubjectSpec& e) {
    std::cerr << "pecheck identify: " << e.what() << "\n";
    return kExitUsage;
  } catch (const SubjectFailure& f) {
    std::cerr << "pecheck identify: " << f.what() << "\n";
    return kExitSubject;
  }
  const SubjectInfo& info = subject->info();
  if (!info.supports(Op::encode) && !info.supports(Op::rotate) && !info.supports(Op::attention)) {
    std::cerr << "pecheck identify: " << options.subject
              << " offers neither encode, rotate nor attention: nothing to identify\n";
    return kExitUsage;
  }
  ErrorModel model;
  model.factor = options.tolerance_factor;
  std::vector<identify::Identification> found;
  try {
    found = identify::identify(*subject, model, options.max_position);
  } catch (const SubjectFailure& f) {
    std::cerr << "pecheck identify: the subject failed: " << f.what() << "\n";
    return kExitSubject;
  }
  bool all_fit = true;
  for (const auto& f : found) all_fit = all_fit && f.fits;
  const json hello = identify::hello_for(info, found);
  if (options.json) {
    json out = {{"subject", format_spec(info.spec)}, {"fits", all_fit}, {"hello", hello}, {"ops", json::array()}};
    for (const auto& f : found) {
      out["ops"].push_back({{"op", f.op}, {"fits", f.fits}, {"convention", f.convention}, {"ratio", f.ratio},
                            {"details", f.details}, {"params", f.params}});
    }
    std::cout << out.dump(2) << "\n";
    return all_fit ? kExitOk : kExitFailed;
  }
  std::cout << fmt::format("pecheck identify: {} ({}, {})\n", format_spec(info.spec), info.name, name(info.dtype));
  for (const auto& f : found) {
    std::cout << fmt::format("{}: {}\n", f.op, f.convention);
    if (f.fits) {
      std::cout << fmt::format("  fits: every probe within the error model (worst {:.2g} of its bound)\n", f.ratio);
    } else {
      std::cout << fmt::format("  no declarable convention fits: the closest is off by {:.3g}× its bound\n", f.ratio);
    }
    std::cout << fmt::format("  probed: {}\n", f.details);
  }
  std::cout << (all_fit ? "the version-2 hello that declares it:\n" : "the version-2 hello of what does fit:\n");
  std::cout << hello.dump() << "\n";
  return all_fit ? kExitOk : kExitFailed;
}

}  // namespace pecheck::cli
