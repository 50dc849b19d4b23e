#pragma once
// Short fingerprints of bytes and JSON values: FNV-1a (64 bits), the
// published function (shards hash cells with it, runner/shard.h). Not a
// signature: anyone can recompute one, so a digest tells two values apart
// and names one briefly in a report, but proves nothing about who wrote it.
#include <cstdint>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"

namespace pecheck {

std::uint64_t fnv1a64(std::string_view bytes);

// "fnv1a64:" and 16 hex digits of the value's compact JSON text (object keys
// sorted, as nlohmann writes them): equal values, equal digests.
std::string json_digest(const json& value);

}  // namespace pecheck
