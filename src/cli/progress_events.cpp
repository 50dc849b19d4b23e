#include "cli/progress_events.h"

#include <unistd.h>

#include <cerrno>

#include "pecheck/runner/shard.h"

namespace pecheck::cli {

ProgressEvents::~ProgressEvents() {
  if (fd_ >= 0) close(fd_);
}

void ProgressEvents::write(const json& event) {
  if (fd_ < 0) return;
  const std::string line = event.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::size_t at = 0;
  while (at < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + at, line.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the reader is gone: no more events
      close(fd_);
      fd_ = -1;
      return;
    }
    at += static_cast<std::size_t>(n);
  }
}

void ProgressEvents::on_plan(const Plan& plan) {
  std::lock_guard lock(mutex_);
  cells_ = 0;
  for (const auto& planned : plan.subjects) {
    for (const auto* p : planned.properties) {
      const auto& shard = plan.options.shard;
      if (!shard || shard_of(p->info.id, planned.spec, shard->total) == shard->index) ++cells_;
    }
  }
  write({{"event", "plan"}, {"cells", cells_}});
}

void ProgressEvents::on_cell_result(const PropertyResult& r) {
  std::lock_guard lock(mutex_);
  ++done_;
  write({{"event", "cell"},
         {"property", r.property},
         {"subject", r.subject},
         {"status", std::string(name(r.status()))},
         {"outcome", std::string(name(r.outcome))},
         {"cases", r.cases},
         {"refused", r.discards},
         {"seconds", r.seconds},
         {"done", done_},
         {"cells", cells_}});
}

void ProgressEvents::on_progress(const CellProgress& p) {
  std::lock_guard lock(mutex_);
  if (!p.slow.empty()) {
    write({{"event", "slow"}, {"property", std::string(p.property)}, {"subject", std::string(p.subject)}, {"message", std::string(p.slow)}});
  }
  write({{"event", "progress"},
         {"property", std::string(p.property)},
         {"subject", std::string(p.subject)},
         {"cases", p.cases},
         {"planned", p.planned},
         {"refused", p.refused},
         {"shrinks", p.shrinks},
         {"seconds", p.seconds},
         {"cell", done_ + 1},
         {"cells", cells_}});
}

}  // namespace pecheck::cli
