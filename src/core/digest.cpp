#include "pecheck/core/digest.h"

#include <fmt/format.h>

namespace pecheck {

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string json_digest(const json& value) {
  return fmt::format("fnv1a64:{:016x}", fnv1a64(value.dump(-1, ' ', false, json::error_handler_t::replace)));
}

}  // namespace pecheck
