// `pecheck list`: the claims (with the planted bugs that catch each sub-check,
// when the planted library is built in), the built-in subjects and the
// planted bugs, as text or as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <vector>

#include "cli/commands.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/builtin/builtins.h"
#ifdef PECHECK_WITH_PLANTED
#include "pecheck/planted/mutants.h"
#endif

namespace pecheck::cli {

namespace {

struct Catch {
  std::string mutant, property, check;
};

// The planted catalog (planted/mutants.h); empty without the planted library,
// which then says nothing about which sub-checks can fail.
std::vector<Catch> catalog() {
  std::vector<Catch> out;
#ifdef PECHECK_WITH_PLANTED
  for (const auto& c : planted_catches()) out.push_back({c.mutant, c.property, c.check});
#endif
  return out;
}

constexpr bool kCatalogBuiltIn =
#ifdef PECHECK_WITH_PLANTED
    true;
#else
    false;
#endif

// The declared sub-checks of `p` that no row of the catalog catches.
std::vector<std::string> uncaught(const PropertyDef& p, const std::vector<Catch>& rows) {
  std::vector<std::string> out;
  for (const auto& check : p.impl.checks) {
    bool caught = false;
    for (const auto& r : rows) caught |= r.property == p.info.id && r.check == check;
    if (!caught) out.push_back(check);
  }
  return out;
}

int list_json(const std::vector<Catch>& rows) {
  json out = {{"properties", json::array()}, {"subjects", json::array()}, {"mutants", json::array()}};
  for (const auto& p : all_properties()) {
    json entry = to_json(p.info);
    entry["checks"] = p.impl.checks;
    entry["scales"] = json::array();  // the axes its shape ladder raises (docs/coverage.md)
    for (Axis axis : p.impl.axes) entry["scales"].push_back(std::string(name(axis)));
    if (kCatalogBuiltIn) {
      entry["caught_by"] = json::array();
      for (const auto& r : rows) {
        if (r.property == p.info.id) entry["caught_by"].push_back({{"mutant", spec_of(SubjectKind::mutant, r.mutant)}, {"check", r.check}});
      }
      entry["uncaught_checks"] = uncaught(p, rows);
    }
    out["properties"].push_back(std::move(entry));
  }
  out["pending"] = json::array();  // claims of the catalog not implemented yet: never run
  for (const auto& p : pending_claims()) out["pending"].push_back({{"id", p.id}, {"issue", p.issue}});
  for (const auto& s : builtin_subjects()) out["subjects"].push_back({{"spec", spec_of(SubjectKind::builtin, s.name)}, {"description", s.description}});
  if (kCatalogBuiltIn) out["uncatalogued_mutants"] = json::array();
  for (const auto& s : mutant_subjects()) {
    json entry = {{"spec", spec_of(SubjectKind::mutant, s.name)}, {"description", s.description}, {"catches", json::array()}};
    for (const auto& r : rows) {
      if (r.mutant == s.name) entry["catches"].push_back({{"property", r.property}, {"check", r.check}});
    }
    if (kCatalogBuiltIn && entry["catches"].empty()) out["uncatalogued_mutants"].push_back(spec_of(SubjectKind::mutant, s.name));
    out["mutants"].push_back(std::move(entry));
  }
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

// Under a claim: each sub-check and the planted bugs that fail it, or a warning.
void print_catches(const PropertyDef& p, const std::vector<Catch>& rows) {
  for (const auto& check : p.impl.checks) {
    std::string bugs;
    for (const auto& r : rows) {
      if (r.property == p.info.id && r.check == check) bugs += fmt::format("{}{}", bugs.empty() ? "" : ", ", spec_of(SubjectKind::mutant, r.mutant));
    }
    if (bugs.empty()) {
      std::cout << fmt::format("      warning: no planted bug fails the sub-check '{}'\n", check);
    } else {
      std::cout << fmt::format("      '{}' caught by {}\n", check, bugs);
    }
  }
}

}  // namespace

int list(bool as_json) {
  const std::vector<Catch> rows = catalog();
  if (as_json) return list_json(rows);
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
    if (!p.info.violated_when.empty()) except += fmt::format(" violated under {}", p.info.violated_when);
    std::cout << fmt::format("  {:<44} {:<8} {}\n      {}\n", p.info.id, name(p.info.expect),
                             except.empty() ? std::string() : fmt::format("({})", except.substr(1)), p.info.claim);
    if (!p.impl.axes.empty()) {
      std::string axes;
      for (Axis axis : p.impl.axes) axes += fmt::format("{}{}", axes.empty() ? "" : ", ", name(axis));
      std::cout << fmt::format("      at real-model sizes (the shape ladder): {}\n", axes);
    }
    if (kCatalogBuiltIn) print_catches(p, rows);
  }
  if (!pending_claims().empty()) {
    std::cout << "\nClaims of the catalog not implemented yet (never run; naming one is a usage error):\n";
    for (const auto& p : pending_claims()) std::cout << fmt::format("  {:<44} pending (issue {})\n", p.id, p.issue);
  }
  std::cout << fmt::format("\nBuilt-in subjects (--subject {}):\n", subject_spec_syntax({SubjectKind::builtin}));
  for (const auto& s : builtin_subjects()) std::cout << fmt::format("  {:<20} {}\n", s.name, s.description);
  std::cout << fmt::format("\nPlanted bugs (--subject {}):\n", subject_spec_syntax({SubjectKind::mutant}));
  for (const auto& s : mutant_subjects()) {
    std::cout << fmt::format("  {:<28} {}\n", s.name, s.description);
    const bool caught = std::any_of(rows.begin(), rows.end(), [&](const Catch& r) { return r.mutant == s.name; });
    if (kCatalogBuiltIn && !caught) std::cout << "      warning: the catalog names no sub-check this planted bug fails\n";
  }
  return kExitOk;
}

}  // namespace pecheck::cli
