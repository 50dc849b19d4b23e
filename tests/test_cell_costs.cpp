// Scheduling by cost (runner/cell_costs.h): parallel jobs take the costliest
// cells first — as measured in an earlier run, else as estimated from what
// the cells need — a subject that runs its cells one at a time keeps its own
// order, and the record of measurements is a cache: a bad line is skipped,
// never an error. The order changes nothing but the timings
// (test_parallel_cells compares whole reports across --jobs).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "pecheck/core/subject_spec.h"
#include "pecheck/property/registry.h"
#include "runner/cell_costs.h"
#include "runner/parallel.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_cell_costs)

using namespace pecheck;

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

const PropertyInfo& property(const std::string& id) {
  const PropertyDef* def = find_property(id);
  BOOST_REQUIRE(def != nullptr);
  return def->info;
}

// A subject as the record names it.
SubjectSpec spec(std::string_view text) { return parse_subject_spec(text); }

}  // namespace

BOOST_AUTO_TEST_CASE(the_costliest_cells_start_first_and_a_serial_subject_keeps_its_order) {
  BOOST_TEST((start_order({1, 5, 3, 5}, {kNone, kNone, kNone, kNone}) == std::vector<std::size_t>{1, 3, 2, 0}));
  // Cells 0 and 2 belong to one serial subject: they start in planned order,
  // in the places their costs earned (second and fourth).
  BOOST_TEST((start_order({1, 9, 4, 2}, {7, kNone, 7, kNone}) == std::vector<std::size_t>{1, 0, 3, 2}));
}

BOOST_AUTO_TEST_CASE(unmeasured_cells_are_estimated_from_what_their_cases_need) {
  const CellCosts costs;
  const SubjectSpec process = spec("cmd:python3 block.py");
  const double history = costs.estimate(property("history_independence"), process, 100);
  const double module = costs.estimate(property("module.causality"), process, 100);
  const double builtin = costs.estimate(property("module.causality"), spec("builtin:llama-block"), 100);
  BOOST_TEST(history > 10 * module, "fresh copies a case, above one request a case");
  BOOST_TEST(module > builtin, "a round trip a case, above an in-process call");
  BOOST_TEST(costs.estimate(property("module.causality"), process, 200) == 2 * module);
}

BOOST_AUTO_TEST_CASE(measurements_are_kept_and_read_back_and_bad_lines_are_skipped) {
  const std::filesystem::path dir = testing::temp_dir("cell-costs");
  const std::filesystem::path record = dir / "store" / "cell-costs.tsv";
  {
    CellCosts costs(record);
    costs.measured("pe.bounded", spec("cmd:python3 /home/me/enc.py"), 100, 4.0);
    costs.measured("pe.offset_only_dot", spec("builtin:sinusoidal"), 0, 1.0);  // no case: not a measurement
    costs.save();
  }
  {
    // A record from another folder of the same checkout names the subject alike.
    const CellCosts costs(record);
    BOOST_TEST(costs.estimate(property("pe.bounded"), spec("cmd:python3 /elsewhere/enc.py"), 50) == 2.0);
    BOOST_TEST(costs.estimate(property("pe.offset_only_dot"), spec("builtin:sinusoidal"), 100) < 0.1, "a prior");
  }
  {
    std::ofstream out(record, std::ios::app);
    out << "garbage\npe.bounded\tx\t-3\t1\npe.bounded\tbuiltin:sinusoidal\t10\tnan\npe.bounded\tbuiltin:rope\t10\t7\n";
  }
  const CellCosts costs(record);
  BOOST_TEST(costs.estimate(property("pe.bounded"), spec("builtin:rope"), 20) == 14.0, "the good line after the bad ones");
  BOOST_TEST(costs.estimate(property("pe.bounded"), spec("cmd:python3 /home/me/enc.py"), 100) == 4.0);
  {
    std::ofstream out(record, std::ios::trunc);
    out << "not a cost record\npe.bounded\tbuiltin:rope\t10\t7\n";
  }
  BOOST_TEST(CellCosts(record).estimate(property("pe.bounded"), spec("builtin:rope"), 10) < 1.0, "no header: not read");
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(workers_take_the_tasks_in_the_start_order_and_deliver_in_planned_order) {
  std::mutex mutex;
  std::vector<std::size_t> taken, delivered;
  std::atomic<int> started{0};
  run_ordered(
      6, 2,
      [&](std::size_t, std::size_t i) {
        {
          std::lock_guard lock(mutex);
          taken.push_back(i);
        }
        // The first two tasks wait for each other: no worker takes a third before both are recorded.
        if (++started <= 2) {
          for (int spin = 0; spin < 5000 && started.load() < 2; ++spin) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }
      },
      [&](std::size_t i) { delivered.push_back(i); }, {5, 4, 3, 2, 1, 0});
  BOOST_TEST((delivered == std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  BOOST_REQUIRE(taken.size() == 6u);
  BOOST_TEST((std::set<std::size_t>{taken[0], taken[1]} == std::set<std::size_t>{5, 4}));
}

BOOST_AUTO_TEST_SUITE_END()  // test_cell_costs
