// pecheck: property-based verification of positional encodings and attention.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#ifdef PECHECK_WITH_PLANTED
#include "pecheck/planted/mutants.h"
#endif

int main(int argc, char** argv) {
  using namespace pecheck;
#ifdef PECHECK_WITH_PLANTED
  install_planted_subjects();
#endif
  CLI::App app{"pecheck — property-based verification of positional encodings and attention"};
  app.require_subcommand(1);

  bool list_json = false;
  auto* list_cmd = app.add_subcommand("list", "list the properties, their claims and the built-in subjects");
  list_cmd->add_flag("--json", list_json, "machine-readable output");

  cli::RunCommand run;
  auto* run_cmd = app.add_subcommand("run", "check properties against subjects and write reports");
  run_cmd->add_option("--subject", run.run.subjects,
                      "builtin:NAME, mutant:NAME, cmd:COMMAND or plugin:PATH (repeatable; default: every built-in)");
  run_cmd->add_option("--properties", run.run.properties, "glob over property ids, e.g. 'pe.*' (repeatable)");
  run_cmd->add_option("--cases", run.run.cases, "successful cases per property")->check(CLI::Range(1, 10000000));
  run_cmd->add_option("--seed", run.seed, "seed (a number, or 'random'); the same seed gives the same results");
  run_cmd->add_option("--max-size", run.run.max_size, "RapidCheck's size bound")->check(CLI::Range(0, 100000));
  run_cmd->add_option("--max-position", run.run.max_position, "largest position generated (the context length verified)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  run_cmd->add_option("--max-width", run.run.max_width,
                      "largest width (d) generated, and the widths the gate checks (default: each property's own range)")
      ->check(CLI::Range(1, 1 << 16));
  run_cmd->add_option("--tolerance-factor", run.run.error_model.factor, "safety multiple of the error model")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("!--no-shrink", run.run.shrink, "report the first counterexample unshrunk");
  run_cmd->add_option("--report-dir", run.report_dir, "where reports are written");
  run_cmd->add_option("--reproduce", run.run.reproduce, "RapidCheck reproduce string from a report");
  run_cmd->add_option("--subject-timeout", run.run.subject_timeout, "seconds a process subject has per request")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("--quiet,-q", run.quiet, "print only failures and the matrix");
  run_cmd->add_option("--config", run.config, "pecheck.toml with the run's settings; flags given here override it");
  run_cmd->add_option("--profile", run.run.profile,
                      "what the subjects must satisfy: sinusoidal, rotary, attention or absolute "
                      "(default: a plugin or process subject's declared ops; a built-in's own expectations)");

  run_cmd->add_flag("!--no-regressions", run.run.regressions,
                    "neither replay nor save stored failures (hermetic CI; also PECHECK_NO_REGRESSIONS=1)");
  run_cmd->add_option("--regression-dir", run.run.regression_dir,
                      "where failures are saved and replayed first on the next run (default .pecheck/regressions)");
  run_cmd->add_option("--github-annotations", run.github_annotations,
                      "print GitHub ::error lines for the first N failures")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_flag("--budget", run.run.budget,
                    "search each encoder and rotary subject's precision budget: the largest position up to which "
                    "each structural property holds within a fixed tolerance");
  double precision_target = 0;
  run_cmd->add_option("--precision-target", precision_target,
                      "the precision budgets' fixed tolerance (default 8 · u(float16) = 3.9e-3)")
      ->check(CLI::PositiveNumber);

  run_cmd->add_option("--jobs,-j", run.run.jobs,
                      "cells run at once, each job with its own subject instance or process (default: the number of "
                      "cores; the results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  run_cmd->add_option("--shard", run.shard,
                      "run only shard I of N (0-based, as GTEST_SHARD_INDEX); default: GTEST_SHARD_INDEX/"
                      "GTEST_TOTAL_SHARDS, else CI_NODE_INDEX/CI_NODE_TOTAL (1-based); 'pecheck merge' joins the shards");

  run_cmd->add_flag("--list-cells", run.list_cells,
                    "print the cells the run would check, one 'PROPERTY<TAB>SUBJECT' line each, and stop "
                    "(pecheck_add_tests in CMake registers one ctest test per line)");

  cli::MergeOptions merge;
  auto* merge_cmd = app.add_subcommand(
      "merge", "write one report set from the report directories of a sharded run (each shard's report.json)");
  merge_cmd->add_option("dirs", merge.dirs, "the shards' report directories")->required();
  merge_cmd->add_option("--report-dir", merge.report_dir, "where the merged reports are written");
  merge_cmd->add_flag("--quiet,-q", merge.quiet, "print only failures and the matrix");

  cli::ReplayOptions replay;
  auto* replay_cmd = app.add_subcommand(
      "replay", "measure a recorded counterexample again, against its subject or --subject (e.g. the fixed one)");
  replay_cmd->add_option("file", replay.file, "a counterexample file or regression-store entry")->required();
  replay_cmd->add_option("--subject", replay.subject, "replay against this subject instead of the recorded one");
  replay_cmd->add_flag("--json", replay.json, "print the result as JSON");
  replay_cmd->add_option("--subject-timeout", replay.subject_timeout, "seconds a process subject has per request")
      ->check(CLI::PositiveNumber);

  std::string serve_spec;
  auto* serve_cmd = app.add_subcommand(
      "serve", "answer the subject protocol (JSON Lines on stdin/stdout) with the subject SPEC");
  serve_cmd->add_option("spec", serve_spec, "builtin:NAME, mutant:NAME or plugin-inproc:PATH")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitUsage;
  }
  try {
    if (*list_cmd) return cli::list(list_json);
    if (*serve_cmd) return cli::serve(serve_spec);
    if (*merge_cmd) return cli::merge(merge, argc > 0 ? argv[0] : "pecheck");
    if (*replay_cmd) {
      replay.executable = cli::self_executable(argv[0]);
      return cli::replay(replay);
    }
    if (precision_target > 0) run.run.precision_target = precision_target;
    for (const CLI::Option* option : run_cmd->get_options()) {
      if (option->count() > 0) run.given.insert(option->get_name());
    }
    run.run.executable = cli::self_executable(argv[0]);
    const std::string program = argc > 0 ? argv[0] : "pecheck";
    return cli::run(run, program, cli::recorded_command_line(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "pecheck: internal error: " << e.what() << "\n";
    return cli::kExitFailed;
  }
}
