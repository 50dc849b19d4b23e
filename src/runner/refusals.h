#pragma once
// The refusals one cell met: their reasons grouped (texts that differ only in
// their numbers are one kind of reason: "built for d=128, got 64" and "… got
// 32"), the widths the subject answered and refused, and the streak of
// refused inputs in a row that stops a cell early, with the sentence that
// says why and which declaration or flag fixes it.
#include <map>
#include <set>
#include <string>

#include "pecheck/core/vocabulary.h"

namespace pecheck {

class RefusalLog {
 public:
  // One refused input, with the subject's reason.
  void refused(const std::string& reason);
  // One input answered: the streak ends.
  void answered() { streak_ = 0; }
  int streak() const { return streak_; }
  int total() const { return total_; }
  // Reason (the first text of each kind) → refusals of that kind, for the
  // first few kinds (Coverage::refusals).
  const std::map<std::string, int>& kinds() const { return kinds_; }
  // "'ValueError: built for d=128, got 64' ×150 (and like it with other numbers), 'odd d' ×3".
  std::string grouped(std::size_t most = 3) const;

  // What the requests reached, to name the fix (the widths d of the requests).
  std::set<int> answered_widths, refused_widths;

 private:
  std::map<std::string, int> kinds_;                 // example text → count
  std::map<std::string, std::string> example_of_;    // the text without its numbers → example text
  std::map<std::string, int> variants_;              // example text → how many distinct texts it stands for
  std::set<std::string> texts_seen_;
  int streak_ = 0;
  int total_ = 0;
};

// The reason a cell stopped early on `log.streak()` refusals in a row, the
// reasons grouped, and the fix: the op's declared shapes (params.OP.shapes,
// SUBJECT-PROTOCOL.md "Declared shapes") or --max-width.
std::string early_stop_reason(Op op, int answered_cases, const RefusalLog& log);
// ". It answered widths d = … and refused d = …. Declare …": the widths and the fix, for any cell that
// met many refusals.
std::string refusal_advice(Op op, const RefusalLog& log);

// "2–126, 130–512" for a set of widths.
std::string ranges_text(const std::set<int>& values);

}  // namespace pecheck
