#pragma once
// RapidCheck's reproduce strings (the "reproduce" field of a report): what
// one names, read without trusting it, and one written for a given case.
#include <string>
#include <vector>

namespace pecheck {

// One entry of a reproduce string: the search it replays and the size its case was drawn at.
struct ReproduceEntry {
  std::string id;
  int size = 0;
};

// The entries of `text`, as RapidCheck's decoder reads them; throws
// std::exception where it cannot. Only for text whose layout was checked
// first (cli/options_validation.cpp walks it with every length checked).
std::vector<ReproduceEntry> reproduce_entries(const std::string& text);

// A reproduce string naming `entries`, each at its size and the first random
// state (what a test needs to forge one).
std::string reproduce_string(const std::vector<ReproduceEntry>& entries);

}  // namespace pecheck
