#pragma once
// Subjects by spec: builtin:NAME, mutant:NAME, cmd:COMMAND, fd:READ,WRITE, plugin:PATH.
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"
#include "pecheck/core/subject_spec.h"  // BadSubjectSpec: a spec that names nothing (exit 2)
#include "pecheck/protocol/bad_declaration.h"  // BadDeclaration: a declaration pecheck cannot accept (exit 2)
#include "pecheck/subjects/subject.h"

namespace pecheck {

struct SubjectOptions {
  double timeout_seconds = 10;   // per request, for process subjects
  // A pecheck executable that can `serve` (the CLI passes its own path). With
  // it, plugin:PATH runs the plugin in a child process, so a crash in plugin
  // code is a subject failure; without it, plugins load into this process.
  std::string executable;
  // Whether a process subject that declares "fork" (SUBJECT-PROTOCOL.md, pecheck's
  // extensions: fresh copies by fork) is used as a zygote: every instance and
  // fresh copy of it is then a forked copy (subjects/copies.h). False: the
  // declaration is ignored and the subject is talked to as one that makes none.
  bool fork = true;
  // pecheck.toml's [subject."SPEC"] table for a plugin run in a child
  // (plugin:PATH; null: none): the child lays it over the plugin's info
  // (`pecheck serve --declarations`), so that its hello carries what the
  // plugin declares there and the requests that implies (positions per axis
  // for rope_2d) reach the plugin instead of being refused on the way.
  json declarations;
};

// Specs: builtin:NAME, mutant:NAME, cmd:COMMAND (process_subject.h),
// fd:READ,WRITE (process_subject.h), plugin:PATH (plugin_factory.h).
// Throws BadSubjectSpec for an unknown or malformed spec, BadDeclaration (a
// BadSubjectSpec) for a subject whose hello declares what pecheck cannot
// accept, SubjectFailure when a subject cannot be started or breaks during
// its handshake.
SubjectPtr make_subject(const SubjectSpec& spec, const SubjectOptions& options = {});
// The same from text (parse_subject_spec's BadSubjectSpec for text that names no kind).
SubjectPtr make_subject(std::string_view spec, const SubjectOptions& options = {});

// Whether make_subject(spec) may be called again for a second, independent
// instance (a parallel job's own): built-ins and planted bugs (objects of
// their own), cmd: (a process each) and plugin: run in a child. Not fd:
// (one peer on one pair of descriptors) nor a plugin loaded into this
// process (its code shares the process and need not be thread-safe).
bool starts_independently(const SubjectSpec& spec, const SubjectOptions& options = {});

}  // namespace pecheck
