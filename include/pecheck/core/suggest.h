#pragma once
// "Did you mean": the closest known word to a misspelt command, option,
// declared field or config key, by edit distance, offered only when it is
// close enough to be the one meant.
#include <string>
#include <string_view>
#include <vector>

namespace pecheck {

// Edit distance with adjacent transpositions ("rnu" is one edit from "run"):
// insertions, deletions, substitutions and swaps of neighbours, each 1.
int edit_distance(std::string_view a, std::string_view b);

// The known word closest to `typed`, when at most about a third of it
// differs (at least 1, at most 3 edits); "" when none is that close.
std::string closest(std::string_view typed, const std::vector<std::string>& known);

}  // namespace pecheck
