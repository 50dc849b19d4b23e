// The registry: the claims and expectations tables joined with the family
// files' implementations by id (see pecheck/property/registry.h).
#include "pecheck/property/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "pecheck/property/applicability.h"

namespace pecheck {

std::string family_of(std::string_view id) {
  const auto dot = id.find('.');
  return std::string(dot == std::string_view::npos ? id : id.substr(0, dot));
}

namespace {

std::vector<PropertyDef> join() {
  std::map<std::string, PropertyImpl> impls;
  for (auto family : {attention_properties, pe_properties, rope_properties, combine_properties, bias_properties,
                      module_properties, history_properties, grad_properties}) {
    for (auto& impl : family()) {
      const std::string id = impl.id;
      if (impl.checks.empty()) throw std::logic_error(fmt::format("property {} declares no sub-checks", id));
      if (!impls.emplace(id, std::move(impl)).second) {
        throw std::logic_error(fmt::format("property {} is implemented twice", id));
      }
    }
  }
  std::vector<PropertyDef> out;
  for (const auto& row : claim_table()) {
    if (find_pending_claim(row.id) != nullptr) {
      throw std::logic_error(fmt::format("claim {} is in the table and still listed as pending", row.id));
    }
    auto it = impls.find(row.id);
    if (it == impls.end()) throw std::logic_error(fmt::format("claim {} has no implementation", row.id));
    PropertyDef def;
    def.info = {row.id, family_of(row.id), row.claim, row.sources, row.op, row.expect, {}, row.structural};
    if (row.applies_when != nullptr) def.info.applies_when = row.applies_when;
    // Every row, conditions or none: applicability also keeps the rotary claims
    // off a decoupled (MLA) head unless they name rotate.decoupled.
    def.info.applicable = applicability(row.op, row.applies_when != nullptr ? row.applies_when : "");
    if (row.violated_when != nullptr) {
      def.info.violated_when = row.violated_when;
      def.info.violated_by = declares(row.violated_when);
    }
    def.impl = std::move(it->second);
    impls.erase(it);
    out.push_back(std::move(def));
  }
  if (!impls.empty()) {
    const std::string& id = impls.begin()->first;
    if (find_pending_claim(id) != nullptr) {
      throw std::logic_error(fmt::format("property {} is implemented and still listed as pending", id));
    }
    throw std::logic_error(fmt::format("property {} implements no claim of the table", id));
  }
  for (const auto& e : expectation_table()) {
    auto it = std::find_if(out.begin(), out.end(), [&](const PropertyDef& d) { return d.info.id == e.property; });
    if (it == out.end()) throw std::logic_error(fmt::format("expectation for unknown property {}", e.property));
    if (!it->info.expect_for.emplace(e.scheme, e.expect).second) {
      throw std::logic_error(fmt::format("two expectations for {} on {}", e.property, e.scheme));
    }
  }
  return out;
}

}  // namespace

const std::vector<PropertyDef>& all_properties() {
  static const std::vector<PropertyDef> all = join();
  return all;
}

const PropertyDef* find_property(std::string_view id) {
  for (const auto& p : all_properties()) {
    if (p.info.id == id) return &p;
  }
  return nullptr;
}

}  // namespace pecheck
