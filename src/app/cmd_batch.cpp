// `perfit batch`: every (set x model) fit of a manifest in one MPI job (docs/batch.md). Rank 0
// checks the manifest, the results directory and what an earlier run finished; the fits are
// then handed out to groups of ranks by batch/scheduler and each runs as one fit job.
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>

#include "batch_plan_file.hpp"
#include "batch_summary.hpp"
#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/batch/plan.hpp"
#include "perfit/batch/scheduler.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/batch_manifest.hpp"
#include "perfit/io/checkpoint_file.hpp"
#include "perfit/io/dir_lock.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/job/fit_checkpoint.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/mpi/agreement.hpp"
#include "perfit/mpi/communicator.hpp"
#include "perfit/mpi/idle_wait.hpp"
#include "perfit/select/batch_entries.hpp"

namespace perfit::app {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Exit code 100 + N: N fits failed (capped at 199), apart from 2-6 and 75.
constexpr int kBatchFailedBase = 100;

struct BatchArgs {
  std::string manifest, out;
  bool resume = false, force = false, json = false;
  unsigned threads = 0;  // per rank, for the select: entries' sets (0: the rank's CPUs)
  mpi::MpiEnvironment* env = nullptr;
};

// What world rank 0 decided before the first fit; the other ranks only need the plan.
struct BatchState {
  io::Manifest manifest;
  std::vector<batch::FitTask> tasks;
  std::optional<io::DirLock> lock;
  std::optional<BatchSummary> summary;
  std::vector<std::size_t> order;                     // the tasks to run, longest first
  std::optional<select::BatchSelections> selections;  // the manifest's select: entries (every rank)
  bool reuse_selections = false;  // --resume of the same selections: keep the sets selected before
};

// What identifies each fit of the batch: changed since the first run means another batch.
nlohmann::ordered_json plan_fingerprint(const BatchState& s) {
  nlohmann::ordered_json fits = nlohmann::ordered_json::object();
  for (const auto& t : s.tasks) {
    fits[t.name] = {{"config", fit::run_config_to_yaml(t.cfg)}, {"model", t.model_yaml}};
  }
  return {
      {"manifest", s.manifest.path}, {"fits", fits}, {"selections", s.selections->fingerprint()}};
}

// A new batch, the same one continued, or a changed manifest: refused unless --force.
void check_earlier_run(const BatchArgs& a, BatchState& s) {
  const std::string path = plan_path(a.out);
  std::error_code ec;
  const auto now = plan_fingerprint(s);
  if (fs::exists(path, ec)) {
    if (!a.resume && !a.force) {
      throw ConfigError("'" + a.out + "' holds a batch already (" + path +
                        "); continue it with --resume, "
                        "or start it over with --force");
    }
    const nlohmann::ordered_json then = read_plan(a.out);
    const std::string diff = plan_difference(then, now);
    s.reuse_selections = a.resume && same_selections(then, now);
    if (!diff.empty() && !a.force) {
      throw ConfigError("the manifest '" + a.manifest + "' differs from the batch in '" + a.out +
                        "' (" + diff +
                        "); pass --force to continue with the new manifest, or use another --out");
    }
  }
  if (!a.resume) fs::remove_all(fs::path(a.out) / ".checkpoints", ec);  // starting over
  write_plan(a.out, now);
}

// A result an earlier run wrote for exactly this fit (options, model, data).
bool finished_before(const batch::FitTask& t, std::optional<io::ResultFile>& r) {
  // A joint selection's winner is known only once it has run: selected again.
  if (!t.select_yaml.empty()) return false;
  std::error_code ec;
  if (!fs::exists(t.cfg.out, ec) || io::detect_file_kind(t.cfg.out) != io::FileKind::result)
    return false;
  try {
    r = io::read_result_file(t.cfg.out);
  } catch (const Error&) {
    return false;  // unreadable: fit again
  }
  fit::RunConfig cfg = t.cfg;
  cfg.resolve();
  return without_places(r->config_yaml) == without_places(fit::run_config_to_yaml(cfg)) &&
         r->model_yaml == t.model_yaml &&
         (t.data_checksum.empty() || r->data_checksum == t.data_checksum) &&
         r->stop_reason != "interrupted";
}

// World rank 0: results directory, lock, earlier run, which fits are left.
void prepare_rank0(const BatchArgs& a, BatchState& s) {
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (!fs::is_directory(a.out, ec))
    throw IoError("cannot create results directory '" + a.out + "'");
  s.lock.emplace(a.out, "perfit batch");
  for (const auto& t : s.tasks) {
    io::check_output({t.cfg.out, "--out", io::FileKind::result, {t.cfg.data, a.manifest}, true});
  }
  s.selections->check_outputs(a.out);
  check_earlier_run(a, s);
  s.summary.emplace(a.out, a.manifest, s.tasks);
  std::size_t skipped = 0;
  for (std::size_t i : batch::longest_first(s.tasks)) {
    std::optional<io::ResultFile> r;
    if (a.resume && finished_before(s.tasks[i], r)) {
      s.summary->set(i, ok_row(s.tasks[i], *r));
      ++skipped;
    } else {
      s.order.push_back(i);
    }
  }
  s.summary->write();
  spdlog::info("batch: {} fits ({} finished before, {} to run) from '{}' into '{}'", s.tasks.size(),
               skipped, s.order.size(), a.manifest, a.out);
}

// The task's fit (the same job as `perfit fit`), or a select: entry's joint selection of its set.
job::FitJobOutcome run_fit_or_selection(const batch::FitTask& t, MPI_Comm group, bool resume,
                                        bool periodic_checkpoints) {
  if (!t.select_yaml.empty()) return select::run_joint_selection(t, group, resume);
  job::FitJob job;
  job.cfg = t.cfg;
  job.force = true;  // our own result file; its kind was checked before the first fit
  job.resume = resume;
  job.verbose = false;
  job.periodic_checkpoints = periodic_checkpoints;
  return job::run_fit_job(std::move(job), group);
}

// One fit on its group; the group's rank 0 returns the summary row as JSON text.
std::string run_task(const batch::FitTask& t, MPI_Comm group, bool periodic_checkpoints) {
  int grank = 0;
  if (group != MPI_COMM_NULL) mpi::check(MPI_Comm_rank(group, &grank), "MPI_Comm_rank");
  // A task handed out just before a signal is not started (the group agrees: a signal may
  // reach some of its ranks only).
  int stop = interrupted() ? 1 : 0;
  if (group != MPI_COMM_NULL) {
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, group),
               "MPI_Allreduce (batch stop)");
  }
  if (stop) return grank == 0 ? pending_row(t).dump() : std::string();
  const auto t0 = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::error_code ec;
  const bool resume = fs::exists(io::checkpoint_path(t.cfg.checkpoint_dir), ec);
  Row row;
  try {
    const job::FitJobOutcome out = run_fit_or_selection(t, group, resume, periodic_checkpoints);
    if (out.checkpointed) {
      row = failed_row(t, "interrupted",
                       "checkpointed at generation " + std::to_string(out.generations) +
                           "; rerun the batch with --resume to continue",
                       seconds());
    } else if (out.result) {
      row = ok_row(t, *out.result);
      if (!t.select_yaml.empty()) row["model"] = out.result->model_name;  // the winner
      fs::remove_all(t.cfg.checkpoint_dir, ec);
    }
  } catch (const MpiError&) {
    throw;  // the group's ranks may disagree: end the job
  } catch (const Error& e) {
    row = failed_row(t, "error", e.what(), seconds());
  }
  return grank == 0 ? row.dump() : std::string();
}

// World rank 0's line per finished fit: done/total, failed, elapsed, ETA (by expected work).
class Progress {
 public:
  Progress(const BatchState& s) : tasks_(s.tasks), total_(s.summary->size()), start_(Clock::now()) {
    for (std::size_t i : s.order) left_ += s.tasks[i].work;
  }
  void finished(const BatchSummary& summary, std::size_t task, const Row& row) {
    done_work_ += tasks_[task].work;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = done_work_ > 0 ? elapsed * (left_ - done_work_) / done_work_ : 0.0;
    const std::size_t done = total_ - summary.count("pending");
    spdlog::info("batch: {}/{} done, {} failed, elapsed {:.1f} s, ETA {:.1f} s | {} {} {}{}", done,
                 total_, summary.count("error"), elapsed, std::max(eta, 0.0),
                 row["set"].get<std::string>(), row["model"].get<std::string>(),
                 row["status"].get<std::string>(),
                 row["status"] == "ok" ? " cost " + format_g(row["cost"].get<double>()) : "");
  }

 private:
  const std::vector<batch::FitTask>& tasks_;
  std::size_t total_;
  Clock::time_point start_;
  double left_ = 0.0, done_work_ = 0.0;
};

int report(const BatchArgs& a, const BatchSummary& summary, const select::SelectionLedger* chosen,
           bool stopped) {
  const std::size_t failed = summary.count("error") + (chosen ? chosen->count("error") : 0),
                    ok = summary.count("ok");
  const std::size_t unfinished = summary.count("interrupted") + summary.count("pending") +
                                 (chosen ? chosen->count("pending") : 0);
  if (a.json) {
    std::ifstream in(fs::path(a.out) / "summary.json");
    Row j = Row::parse(in);
    if (chosen) {  // nested in the batch's document: every row parsed, only when asked for
      std::ostringstream selection;
      chosen->write_json(selection, Row::object());
      j["selection"] = Row::parse(selection.str());
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%-32s %-16s %-12s %12s %9s\n", "set", "model", "status", "cost", "seconds");
    for (std::size_t i = 0; i < summary.size(); ++i) {
      const Row& r = summary.row(i);
      const auto num = [](const Row& v, bool fixed) {
        char buf[32] = "-";
        if (v.is_number() && fixed) std::snprintf(buf, sizeof buf, "%.2f", v.get<double>());
        if (v.is_number() && !fixed) std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
        return std::string(buf);
      };
      std::printf("%-32s %-16s %-12s %12s %9s\n", r["set"].get<std::string>().c_str(),
                  r["model"].get<std::string>().c_str(), r["status"].get<std::string>().c_str(),
                  num(r["cost"], false).c_str(), num(r["seconds"], true).c_str());
    }
    if (summary.size() > 0 || !chosen) {
      std::printf("%zu ok, %zu failed, %zu unfinished; summary in %s\n", ok, summary.count("error"),
                  summary.count("interrupted") + summary.count("pending"),
                  (fs::path(a.out) / "summary.csv").c_str());
    }
    if (chosen) {
      std::printf(
          "selection: %zu set(s), %zu ok, %zu error, %zu not selected; winners in %s "
          "(show/predict/explain/recommend --set NAME), one row per set in %s\n",
          chosen->size(), chosen->count("ok"), chosen->count("error"), chosen->count("pending"),
          (fs::path(a.out) / "selection.h5").c_str(), (fs::path(a.out) / "selection.csv").c_str());
    }
  }
  if (stopped && unfinished > 0) {
    std::fprintf(stderr,
                 "perfit: batch interrupted (signal %d): %zu fits or selections unfinished, "
                 "checkpoints in '%s'; "
                 "resume with: %s\n",
                 interrupt_signal(), unfinished, (fs::path(a.out) / ".checkpoints").c_str(),
                 job::resume_command().c_str());
    return kInterruptedExit;
  }
  if (failed > 0) {
    std::fprintf(stderr, "perfit: %zu of %zu fits and selections failed (status=error in %s%s)\n",
                 failed, summary.size() + (chosen ? chosen->size() : 0),
                 (fs::path(a.out) / "summary.csv").c_str(), chosen ? " and selection.csv" : "");
    return kBatchFailedBase + static_cast<int>(std::min<std::size_t>(failed, 99));
  }
  return 0;
}

int run_batch(BatchArgs& a) {
  const bool parallel = a.env->initialized() && a.env->size() > 1;
  const MPI_Comm world = parallel ? MPI_COMM_WORLD : MPI_COMM_NULL;
  const int rank = parallel ? a.env->rank() : 0, size = parallel ? a.env->size() : 1;
  BatchState s;
  // The stores are inputs only: each is checked and each set described once for the whole
  // batch (its plan, then every fit and selection that opens it).
  const io::SealMemo checked_once;
  const io::SetInfoMemo described_once;
  const auto setup = [&] {
    s.manifest = io::load_manifest(a.manifest);
    if (size % s.manifest.ranks_per_fit != 0) {
      throw ConfigError("manifest '" + a.manifest +
                        "' asks ranks_per_fit: " + std::to_string(s.manifest.ranks_per_fit) +
                        ", which does not divide the job's " + std::to_string(size) +
                        " ranks; start a multiple of it");
    }
    s.tasks = batch::plan_batch(s.manifest, a.out);
    s.selections.emplace(s.manifest, a.out);
    if (rank == 0) prepare_rank0(a, s);
  };
  const GracefulScope graceful;  // a signal from here on stops at a fit's generation boundary
  if (parallel) {
    mpi::all_or_none(world, setup);
  } else {
    setup();
  }
  std::optional<Progress> progress;
  if (rank == 0) progress.emplace(s);
  std::atomic<bool> stop{false};
  batch::ScheduleHooks hooks;
  // Periodic checkpoints when asked for (--resume, the manifest's checkpoint_every); a signal
  // always checkpoints the fits in progress.
  const bool periodic = a.resume || s.manifest.checkpoint_every > 0;
  hooks.run = [&](std::size_t task, MPI_Comm group) {
    return run_task(s.tasks[task], group, periodic);
  };
  std::mutex summary_mutex;  // finished() and flush() may run on different threads of rank 0
  hooks.finished = [&](std::size_t task, std::string_view record) {
    Row row = Row::parse(record);
    if (row["status"] == "interrupted") stop = true;
    const std::lock_guard<std::mutex> lock(summary_mutex);
    s.summary->set(task, row);
    progress->finished(*s.summary, task, row);
  };
  hooks.flush = [&] {
    std::optional<BatchSummary> copy;
    {
      const std::lock_guard<std::mutex> lock(summary_mutex);
      copy = *s.summary;
    }
    copy->write();
  };
  hooks.stop_requested = [&] { return stop.load() || interrupted(); };
  batch::run_schedule(world, s.manifest.ranks_per_fit, s.order, hooks);
  // Then the select: entries (after a signal none starts: they are written as pending).
  std::optional<select::SelectionLedger> chosen;
  if (!s.selections->empty())
    chosen = s.selections->run(a.out, s.reuse_selections, a.threads, world);
  int code = rank == 0
                 ? report(a, *s.summary, chosen ? &*chosen : nullptr, stop.load() || interrupted())
                 : 0;
  // The other ranks wait here while rank 0 writes the summaries and the selection store.
  if (parallel) mpi::bcast_idle(&code, 1, MPI_INT, 0, world, "MPI_Ibcast (batch exit code)");
  return code;
}

const OptionTable<BatchArgs>& batch_options() {
  using A = BatchArgs;
  static const OptionTable<A> t = {
      required(text_option<A>("manifest", &A::manifest, "a YAML file",
                              "YAML manifest (configs/batch.yaml shows the format)")),
      required(out_option<A>(&A::out, "results directory (created if missing)")),
      bool_option<A>("resume", &A::resume,
                     "continue the batch in --out: skip finished fits, resume checkpointed ones"),
      force_option<A>(
          &A::force,
          "start over in a directory that holds a batch, or continue one whose manifest changed"),
      json_option<A>(&A::json, "summary.json on stdout instead of the table"),
      whole_option<A>("threads", &A::threads, 0, 1024,
                      "threads per rank selecting the select: entries' sets side by side, one set "
                      "each (0: one per CPU the rank may use, shared with the node's other ranks; "
                      "the answers are the same for any count). A fit's own threads are its "
                      "threads option"),
  };
  return t;
}

}  // namespace

void add_batch_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<BatchArgs>();
  a->env = &env;
  add_command(
      app, action, "batch",
      "Fit every model of a manifest to every set it names, in one MPI job (docs/batch.md).\n"
      "mpiexec -n R perfit batch --manifest M.yaml --out DIR: groups of ranks_per_fit ranks take\n"
      "fits longest first; DIR gets one result file per fit and summary.csv/summary.json after\n"
      "every fit. Exit: 0 all ok, 75 interrupted (rerun with --resume), 100+N when N fits failed\n"
      "(199: 99 or more), 2-6 a batch-level error as for every command.",
      a, batch_options(), run_batch,
      mpi::ThreadLevel::multiple);  // rank 0 hands out fits from a second thread
}

}  // namespace perfit::app
