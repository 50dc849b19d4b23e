// `pecheck run`: parse (main.cpp) → settle the options (flags over the config
// file) → plan → run → write the reports.
#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/progress_events.h"
#include "cli/run_steps.h"
#include "pecheck/config/config_file.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/core/interrupt.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/report_files.h"
#include "pecheck/runner/session.h"
#include "pecheck/runner/shard.h"
#include "pecheck/subjects/process_subject.h"

namespace pecheck::cli {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Settings from the config file fill what the command line did not give.
void overlay(const FileConfig& f, RunCommand& c) {
  auto take = [&c](const char* flag, const auto& from_file, auto& field) {
    if (from_file && c.given.count(flag) == 0) field = *from_file;
  };
  RunOptions& o = c.run;
  if (o.subjects.empty()) o.subjects = f.subjects;
  if (o.properties.empty()) o.properties = f.properties;
  take("--profile", f.profile, o.profile);
  take("--cases", f.cases, o.cases);
  take("--seed", f.seed, c.seed);
  take("--max-position", f.max_position, o.max_position);
  take("--history", f.history, o.history);
  take("--subject-timeout", f.subject_timeout, o.subject_timeout);
  take("--report-dir", f.report_dir, c.report_dir);
  take("--model-config", f.model_config, o.model_config);
  take("--tolerance-factor", f.tolerance_factor, o.error_model.factor);
  o.expectations = f.expect;
  for (const auto& [spec, declaration] : f.subject_declarations) {
    o.declarations[spec] = declaration.declared;
    o.declaration_lines[spec] = declaration.lines;
    o.declaration_lines[spec][""] = declaration.where;
    if (declaration.max_position) o.subject_max_position[spec] = *declaration.max_position;
  }
  o.error_model.overrides = f.tolerance_factors;
  o.error_model.absolute = f.tolerance_bounds;
}

// The command's options with the config file under them, the seed drawn.
RunCommand settle(RunCommand c) {
  if (!c.config.empty()) {
    std::vector<std::string> ids;
    for (const auto& p : all_properties()) ids.push_back(p.info.id);
    try {
      overlay(load_config(c.config, ids), c);
    } catch (const ConfigError& e) {
      throw UsageError(e.what());
    }
  }
  // Hermetic CI turns the store off from the environment.
  if (const char* off = std::getenv("PECHECK_NO_REGRESSIONS"); off != nullptr && *off != '\0' && std::string(off) != "0") {
    c.run.regressions = false;
  }
  // The shard: the flag, else the CI environment's conventions.
  try {
    if (!c.shard.empty()) {
      c.run.shard = parse_shard(c.shard);
    } else {
      c.run.shard = shard_from_environment([](const char* name) { return std::getenv(name); });
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (c.seed == "random" && c.run.shard) {
    throw UsageError("--seed random with a shard: each shard would draw its own seed; give every shard the same number");
  }
  if (c.seed == "random") {
    c.run.seed = std::random_device{}();
  } else {
    try {
      size_t used = 0;
      c.run.seed = std::stoull(c.seed, &used);
      if (used != c.seed.size() || c.seed.front() == '-') throw std::invalid_argument(c.seed);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--seed must be a non-negative integer or 'random', got '{}'", c.seed));
    }
  }
  return c;
}

// --list-cells: the planned cells of the shard, for test runners that give each its own test.
int list_cells(const Plan& plan) {
  int code = kExitOk;
  for (const auto& planned : plan.subjects) {
    if (planned.start_failure) {
      std::cerr << fmt::format("pecheck: subject {} failed to start: {}\n", format_spec(planned.spec), planned.start_failure->message);
      code = kExitSubject;
      continue;
    }
    for (const auto* p : planned.properties) {
      if (plan.options.shard && shard_of(p->info.id, planned.spec, plan.options.shard->total) != plan.options.shard->index) {
        continue;
      }
      std::cout << p->info.id << '\t' << format_spec(planned.spec) << '\n';
    }
  }
  return code;
}

}  // namespace

// PECHECK_PARENT_PID=PID (the Python package sets it to its own pid): the
// run ends when that process dies, as on a SIGTERM (its subjects stopped, its
// partial report written), rather than running on under init after a job
// timeout killed pytest. PR_SET_PDEATHSIG set by pecheck itself, after its
// exec, not by the caller between fork and exec: Python's preexec_fn is
// unsafe in a process with threads (pytest-xdist, PyTorch), and a caller in
// any language only has to set a variable. A parent that died before the
// prctl is seen by its pid: pecheck's parent is no longer the one named.
// Where a wrapper stands between them (PECHECK_BIN a script that forks
// pecheck), the death signal would follow the wrapper: a thread watches the
// named process instead (its start time, so a reused pid is not mistaken for
// it), a few times a second. The variable is removed, so the subjects pecheck starts (a pecheck among
// them has another parent) do not inherit it. Returns an error sentence for
// a value that is not a process id.
std::string follow_parent() {
  const char* text = std::getenv("PECHECK_PARENT_PID");
  if (text == nullptr) return {};
  const std::string value = text;
  unsetenv("PECHECK_PARENT_PID");
  char* end = nullptr;
  errno = 0;
  const long pid = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || pid <= 1 || pid > 0x3fffffff) {
    return fmt::format("PECHECK_PARENT_PID must be the process id of pecheck's parent, got '{}'",
                       value.substr(0, 40));
  }
  const pid_t parent = static_cast<pid_t>(pid);
  if (getppid() == parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) raise(SIGTERM);  // it died before the prctl
    return {};
  }
  const std::string stat_path = fmt::format("/proc/{}/stat", parent);
  auto started = [stat_path] {
    std::ifstream in(stat_path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::string();
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    for (int i = 0; i < 20 && fields >> field; ++i) {
    }
    return field;  // field 22 of proc(5): its start time
  };
  const std::string start = started();
  if (start.empty()) {
    raise(SIGTERM);
    return {};
  }
  std::thread([started, start] {
    while (started() == start) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(getpid(), SIGTERM);
  }).detach();
  return {};
}

// Declared before the plan, so that it runs after the plan's subjects have
// stopped, on every way out of the run: whatever their descendants left
// reparented to pecheck (its subreaper) is killed before pecheck exits.
struct LeftoverSweep {
  LeftoverSweep() = default;
  LeftoverSweep(const LeftoverSweep&) = delete;
  LeftoverSweep& operator=(const LeftoverSweep&) = delete;
  ~LeftoverSweep() { kill_leftover_processes(); }
};

// The options given that a cell's draws and verdict depend on beyond those
// every Rerun line names (report/json_writer.cpp): the configuration file
// (declarations, tolerances, expectations) and the flags given beside it,
// which override it as they did here.
std::string cell_options(const RunCommand& given) {
  const RunOptions defaults;
  const RunOptions& o = given.run;
  std::string out;
  if (!given.config.empty()) out += " --config " + shell_quote(given.config);
  if (!o.model_config.empty()) out += " --model-config " + shell_quote(o.model_config);
  if (!o.profile.empty()) out += " --profile " + shell_quote(o.profile);
  if (o.max_size != defaults.max_size) out += fmt::format(" --max-size {}", o.max_size);
  if (o.subject_timeout != defaults.subject_timeout) out += fmt::format(" --subject-timeout {}", o.subject_timeout);
  if (!o.fork) out += " --no-fork";
  if (!o.shrink) out += " --no-shrink";
  return out;
}

int run(const RunCommand& given, const std::string& program, const std::string& command_line) {
  const LeftoverSweep sweep;
  RunCommand command;
  Plan plan;
  ConsoleObserver console(given.quiet, Terminal::of_stdout());
  std::optional<ProgressEvents> events;
  if (given.progress_fd >= 0) {
    if (fcntl(given.progress_fd, F_GETFD) == -1) {
      std::cerr << fmt::format("pecheck: --progress-fd {}: no such open file descriptor\n", given.progress_fd);
      return kExitUsage;
    }
    events.emplace(given.progress_fd);
  }
  MulticastObserver observers;
  observers.add(console);
  if (events) observers.add(*events);
  // Ctrl-C or a CI job's SIGTERM: stop starting cells, keep the results so
  // far and write them marked interrupted (exit 128 + the signal); a second
  // signal ends pecheck at once. From before the plan: starting a subject
  // can take seconds, and a stop then must leave a report too.
  install_interrupt_handlers();
  finish_on_interrupt(true);
  if (const std::string bad = follow_parent(); !bad.empty()) {
    std::cerr << "pecheck: " << bad << "\n";
    return kExitUsage;
  }
  try {
    command = settle(given);
    if (command.seed == "random") {
      std::cout << fmt::format("seed {} (drawn by --seed random; --seed {} reruns this run)\n", command.run.seed,
                               command.run.seed);
    }
    command.run.progress = [&console, &events](const CellProgress& p) {
      console.on_progress(p);
      if (events) events->on_progress(p);
    };
    plan = pecheck::plan(command.run, run_steps(command.run));
  } catch (const UsageError& e) {
    std::cerr << "pecheck: " << e.what() << "\n";
    return kExitUsage;
  } catch (const PlanError& e) {
    std::cerr << "pecheck: " << e.what() << "\n";
    return kExitUsage;
  }
  if (command.list_cells) return list_cells(plan);
  RunReport report = pecheck::run(plan, observers);
  report.program = program;
  report.command = command_line + (command.seed == "random" ? fmt::format(" --seed {}", command.run.seed) : "");
  report.cell_options = cell_options(given);
  if (!command.rerun_command.empty()) {
    // A front end's own command (pytest's node) reruns an fd: subject; pecheck's would name descriptors.
    std::string rerun = command.rerun_command;
    for (std::size_t at = rerun.find("{seed}"); at != std::string::npos; at = rerun.find("{seed}", at)) {
      rerun.replace(at, 6, std::to_string(command.run.seed));
    }
    report.rerun = rerun;
  }
  report.report_dir = command.report_dir;

  std::cout << write_console_matrix(report);
  if (report.shard) {
    const ShardInfo& s = *report.shard;
    std::cout << shard_sentence(s.index, s.total, s.cells, s.total_cells) << "; 'pecheck merge' joins the shards\n";
  }
  try {
    const auto files = write_reports(command.report_dir, report);
    print_after_reports(report, command, files.size());
  } catch (const ReportWriteError& e) {
    std::cerr << "pecheck: " << e.what() << "\n";
    return kExitUsage;
  }
  return report.exit_code;
}

}  // namespace pecheck::cli
