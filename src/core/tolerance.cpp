#include "pecheck/core/tolerance.h"

#include <fmt/format.h>

namespace pecheck {

double ErrorModel::factor_for(const std::string& property) const {
  auto it = overrides.find(property);
  return it == overrides.end() ? factor : it->second;
}

Tolerance ErrorModel::bound(const std::string& property, double work, double scale,
                            const std::string& what) const {
  if (auto it = absolute.find(property); it != absolute.end()) {
    return {it->second, fmt::format("{:.3g} (fixed by configuration)", it->second)};
  }
  const double f = factor_for(property);
  const double b = f * u() * work * scale;
  return {b, fmt::format("{:g} · u({}) · {} = {:g} · {:.3g} · {:.4g} · {:.4g} = {:.3g}", f,
                         name(dtype), what, f, u(), work, scale, b)};
}

Tolerance ErrorModel::exact(const std::string& property, const std::string& why) const {
  if (auto it = absolute.find(property); it != absolute.end()) {
    return {it->second, fmt::format("{:.3g} (fixed by configuration)", it->second)};
  }
  return {0.0, fmt::format("0 (exact: {})", why)};
}

}  // namespace pecheck
