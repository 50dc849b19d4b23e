#pragma once
// The composition root of `pecheck run`: the steps its options ask for,
// handed to plan() (the runner knows only their interfaces, runner/session.h).
#include "pecheck/runner/session.h"

namespace pecheck::cli {

// The regression store (replay before each cell, save after; not with
// --reproduce, which reruns one recorded case) unless --no-regressions; the
// plot probe (RunOptions::plots, on by default) and the precision budgets
// with --budget, both on shard 0 only (a sharded run probes and budgets each
// subject once; merge takes them from that shard).
Steps run_steps(const RunOptions& options);

}  // namespace pecheck::cli
