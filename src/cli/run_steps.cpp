#include "cli/run_steps.h"

#include <memory>

#include "pecheck/budget/precision_budget.h"
#include "pecheck/probe/plot_probe.h"
#include "pecheck/replay/regression_store.h"

namespace pecheck::cli {

Steps run_steps(const RunOptions& options) {
  Steps steps;
  if (options.regressions && options.reproduce.empty()) {
    auto store = std::make_shared<RegressionStore>(options.regression_dir);
    steps.before_cell.push_back(store);
    steps.after_cells.push_back(store);
  }
  const bool first_shard = !options.shard || options.shard->index == 0;
  if (options.plots && first_shard) steps.after_cells.push_back(plot_step());
  if (options.budget && first_shard) steps.after_cells.push_back(budget_step());
  return steps;
}

}  // namespace pecheck::cli
