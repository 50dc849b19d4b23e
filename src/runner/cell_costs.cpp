#include "runner/cell_costs.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string_view>
#include <system_error>

#include "pecheck/core/subject_spec.h"
#include "pecheck/runner/shard.h"

namespace pecheck {

namespace {

constexpr std::string_view kHeader = "pecheck-cell-costs 1";
constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 20;  // a record is a cache: a larger one is not read

// Seconds a case is guessed to take where no cell measured it. Only their
// ratios matter: a fresh copy (a fork, or a start-up) is worth hundreds of
// requests; a request to a process is worth tens of in-process calls.
constexpr double kInProcessCase = 5e-5, kProcessCase = 1e-3, kFreshCopyCase = 0.1;

bool is_process(const SubjectSpec& spec) { return runs_in_another_process(spec.kind); }

// A property whose cases compare with fresh copies of the subject.
bool needs_fresh_copies(const PropertyInfo& property) {
  return property.applies_when.find("restartable") != std::string::npos;
}

template <class T>
bool parse(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

CellCosts::CellCosts(std::filesystem::path record) : record_(std::move(record)) {
  if (record_.empty()) return;
  std::error_code ec;
  const auto size = std::filesystem::file_size(record_, ec);
  if (ec || size > kMaxRecordBytes) return;
  std::ifstream in(record_);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return;
  // property <TAB> subject key <TAB> cases <TAB> seconds
  while (std::getline(in, line)) {
    std::vector<std::string_view> fields;
    std::string_view rest = line;
    for (std::size_t tab; (tab = rest.find('\t')) != std::string_view::npos; rest.remove_prefix(tab + 1)) {
      fields.push_back(rest.substr(0, tab));
    }
    fields.push_back(rest);
    Measurement m;
    double seconds = 0;
    if (fields.size() != 4 || fields[0].empty() || fields[1].empty() || !parse(fields[2], m.cases) ||
        m.cases <= 0 || !parse(fields[3], seconds) || !std::isfinite(seconds) || seconds < 0) {
      continue;
    }
    m.seconds = seconds;
    cells_[{std::string(fields[0]), std::string(fields[1])}] = m;
  }
}

double CellCosts::estimate(const PropertyInfo& property, const SubjectSpec& spec, int cases) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = cells_.find({property.id, subject_key(format_spec(spec))}); it != cells_.end()) {
      return it->second.seconds * cases / it->second.cases;
    }
  }
  const double request = is_process(spec) ? kProcessCase : kInProcessCase;
  return cases * (needs_fresh_copies(property) ? kFreshCopyCase * (is_process(spec) ? 1 : 0.01) + request : request);
}

void CellCosts::measured(const std::string& property, const SubjectSpec& spec, int cases, double seconds) {
  if (cases <= 0 || !std::isfinite(seconds) || seconds < 0) return;
  std::lock_guard lock(mutex_);
  cells_[{property, subject_key(format_spec(spec))}] = {cases, seconds};
}

void CellCosts::save() const {
  if (record_.empty()) return;
  std::string text = std::string(kHeader) + "\n";
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, m] : cells_) {
      // A subject key with a tab or newline could not be read back: left out.
      if (key.second.find_first_of("\t\n") != std::string::npos) continue;
      text += fmt::format("{}\t{}\t{}\t{:.6g}\n", key.first, key.second, m.cases, m.seconds);
    }
  }
  if (text.size() > kMaxRecordBytes) return;
  std::error_code ec;
  std::filesystem::create_directories(record_.parent_path(), ec);
  const std::filesystem::path partial = record_.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return;
  }
  std::filesystem::rename(partial, record_, ec);
}

std::vector<std::size_t> start_order(const std::vector<double>& costs, const std::vector<std::size_t>& serial) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  // A serial group's cells, in planned order, fill the places its cells took.
  std::map<std::size_t, std::vector<std::size_t>> planned;  // group -> its cells in planned order
  for (std::size_t i = 0; i < serial.size(); ++i) {
    if (serial[i] != static_cast<std::size_t>(-1)) planned[serial[i]].push_back(i);
  }
  std::map<std::size_t, std::size_t> used;
  for (std::size_t& cell : order) {
    if (cell >= serial.size() || serial[cell] == static_cast<std::size_t>(-1)) continue;
    const std::size_t group = serial[cell];
    cell = planned[group][used[group]++];
  }
  return order;
}

}  // namespace pecheck
