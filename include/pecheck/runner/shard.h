#pragma once
// Sharding a run across CI machines, the way test runners do it: each cell
// (property id × subject spec) belongs to exactly one of N shards, by a hash
// of its own name — so a cell's shard never depends on which other cells are
// selected, and the same cell lands on the same machine run after run.
//
//   shard(cell) = FNV-1a-64("<property id>|<subject key>") mod N
//
// The subject key is the spec with every path cut to its file name
// (subject_key below), so shards agree across machines whose checkouts live
// in different folders.
//
// FNV-1a 64: offset basis 14695981039346656037, prime 1099511628211, over the
// UTF-8 bytes (http://www.isthe.com/chongo/tech/comp/fnv/).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "pecheck/core/digest.h"  // fnv1a64
#include "pecheck/core/subject_spec.h"
#include "pecheck/runner/options.h"

namespace pecheck {

// The spec with each whitespace-separated word's folders removed, keeping a
// leading "scheme:" — "cmd:python3 /ci/x/enc.py" and "plugin:/opt/libp.so"
// become "cmd:python3 enc.py" and "plugin:libp.so". Seeds and shards hash
// this, so a cell's draws do not depend on where the checkout lives.
std::string subject_key(std::string_view spec);

// The shard (0-based) of one cell among `total`; `subject` is the spec.
int shard_of(std::string_view property, std::string_view subject, int total);
int shard_of(std::string_view property, const SubjectSpec& subject, int total);  // of format_spec(subject)

// "I/N", I 0-based (GoogleTest's GTEST_SHARD_INDEX convention), 0 ≤ I < N.
// Throws std::invalid_argument with a sentence naming the flag.
ShardSpec parse_shard(std::string_view text);

// The shard the environment asks for when no --shard is given:
// GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (0-based index), else
// CI_NODE_INDEX/CI_NODE_TOTAL (GitLab `parallel:`, 1-based index). None when
// neither pair is set. Half a pair, a bad value, or both pairs set to
// different shards throws std::invalid_argument naming the variables.
using Environment = std::function<const char*(const char*)>;
std::optional<ShardSpec> shard_from_environment(const Environment& getenv);

// "shard 1/3 (0-based): 12 of 37 cells" — the sentence every front end prints.
std::string shard_sentence(int index, int total, int cells, int total_cells);

}  // namespace pecheck
