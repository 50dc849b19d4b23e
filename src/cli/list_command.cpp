#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck::cli {

int list(bool as_json) {
  if (as_json) {
    json out = {{"properties", json::array()}, {"subjects", json::array()}, {"mutants", json::array()}};
    for (const auto& p : all_properties()) out["properties"].push_back(to_json(p.info));
    for (const auto& s : builtin_subjects()) out["subjects"].push_back({{"spec", "builtin:" + s.name}, {"description", s.description}});
    for (const auto& s : mutant_subjects()) out["mutants"].push_back({{"spec", "mutant:" + s.name}, {"description", s.description}});
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "Properties (id, expectation for a correct implementation; per-scheme exceptions):\n";
  std::string family;
  for (const auto& p : all_properties()) {
    if (p.info.family != family) {
      family = p.info.family;
      std::cout << "\n[" << family << "]\n";
    }
    std::string except;
    for (const auto& [scheme, e] : p.info.expect_for) {
      if (e != p.info.expect) except += fmt::format(" {}={}", scheme, name(e));
    }
    std::cout << fmt::format("  {:<44} {:<8} {}\n      {}\n", p.info.id, name(p.info.expect),
                             except.empty() ? std::string() : fmt::format("({})", except.substr(1)), p.info.claim);
  }
  std::cout << "\nBuilt-in subjects (--subject builtin:NAME):\n";
  for (const auto& s : builtin_subjects()) std::cout << fmt::format("  {:<20} {}\n", s.name, s.description);
  std::cout << "\nPlanted bugs (--subject mutant:NAME):\n";
  for (const auto& s : mutant_subjects()) std::cout << fmt::format("  {:<28} {}\n", s.name, s.description);
  return kExitOk;
}

}  // namespace pecheck::cli
